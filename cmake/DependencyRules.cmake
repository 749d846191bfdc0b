# The one list of packages, in dependency order (src/ and tests/ add their
# folders from it; the include check reads it), and the dependency direction
# of the brief, enforced at configure time by target links and by the include
# check (tests/architecture/check_includes.cmake):
#
#   app (the mains) -> cli -> server -> {capabilities, httpd, registry, machine}
#   capabilities -> {agent, mcp, store};  mcp -> {oauth, tool}
#   agent -> {session, llm, tool} -> {transport, proc, base}
#   desktop -> protocol + transport (never agent)
#
# A package may link and include only the packages listed for it (each edge
# listed is one the code uses), and no core package may reach Qt or the
# application packages, directly or through another target. `app` is not a
# library: src/app holds the two binaries' mains, and its entry here is for
# the include check.
set(AVA_PACKAGE_ORDER
  base proc transport llm session tool oauth mcp agent protocol
  store registry machine httpd capabilities server cli desktop)

set(AVA_ALLOWED_base "")
set(AVA_ALLOWED_proc base)
set(AVA_ALLOWED_transport base)
set(AVA_ALLOWED_llm transport base)
# session uses llm's provider-neutral message types for context reconstruction.
set(AVA_ALLOWED_session llm base)
set(AVA_ALLOWED_tool proc base)
set(AVA_ALLOWED_oauth transport base)
set(AVA_ALLOWED_mcp oauth tool proc transport base)
set(AVA_ALLOWED_agent session llm tool proc transport base)
set(AVA_ALLOWED_protocol session llm base)
set(AVA_ALLOWED_store base)
set(AVA_ALLOWED_registry protocol proc base)
set(AVA_ALLOWED_machine base)
set(AVA_ALLOWED_httpd machine protocol transport base)
set(AVA_ALLOWED_capabilities agent mcp oauth store tool base)
set(AVA_ALLOWED_server capabilities httpd registry machine agent protocol session llm proc transport base)
set(AVA_ALLOWED_cli server capabilities machine mcp oauth agent session llm proc base)
set(AVA_ALLOWED_app cli server base)
set(AVA_ALLOWED_desktop protocol transport base)

set(AVA_CORE_PACKAGES base proc transport session llm tool oauth mcp agent)
set(AVA_APP_TARGETS ava_server ava_cli ava_desktop)

# Collects every target name reachable through link dependencies.
function(_ava_link_closure target out)
  set(seen "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue current)
    if(current IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${current})
    if(NOT TARGET ${current})
      continue()
    endif()
    get_target_property(type ${current} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(direct ${current} LINK_LIBRARIES)
      if(direct)
        list(APPEND links ${direct})
      endif()
    endif()
    get_target_property(iface ${current} INTERFACE_LINK_LIBRARIES)
    if(iface)
      list(APPEND links ${iface})
    endif()
    foreach(link IN LISTS links)
      # Strip $<LINK_ONLY:...> and similar wrappers down to the target name.
      string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" link "${link}")
      if(link AND NOT link IN_LIST seen)
        list(APPEND queue ${link})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_ITEM seen ${target})
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# The packages a package may reach: its allowed list and, transitively, theirs.
function(_ava_allowed_closure pkg out)
  set(result "")
  set(queue ${AVA_ALLOWED_${pkg}})
  while(queue)
    list(POP_FRONT queue current)
    if(NOT current IN_LIST result)
      list(APPEND result ${current})
      list(APPEND queue ${AVA_ALLOWED_${current}})
    endif()
  endwhile()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(ava_check_dependency_rules)
  get_property(packages GLOBAL PROPERTY AVA_PACKAGES)
  set(errors "")
  foreach(pkg IN LISTS packages)
    if(NOT DEFINED AVA_ALLOWED_${pkg})
      list(APPEND errors "package '${pkg}' has no entry in cmake/DependencyRules.cmake")
      continue()
    endif()
    _ava_link_closure(ava_${pkg} closure)
    _ava_allowed_closure(${pkg} allowed)
    foreach(dep IN LISTS closure)
      if(dep MATCHES "^ava_(.+)$")
        set(dep_pkg ${CMAKE_MATCH_1})
        if(dep_pkg IN_LIST packages AND NOT dep_pkg IN_LIST allowed)
          list(APPEND errors "ava_${pkg} links ${dep}, against the dependency direction")
        endif()
      endif()
      if(pkg IN_LIST AVA_CORE_PACKAGES)
        if(dep MATCHES "^Qt[0-9]*::" OR dep MATCHES "^Qt[0-9]*[A-Z]")
          list(APPEND errors "core package ava_${pkg} links Qt (${dep})")
        endif()
        if(dep IN_LIST AVA_APP_TARGETS)
          list(APPEND errors "core package ava_${pkg} links application target ${dep}")
        endif()
      endif()
    endforeach()
  endforeach()
  if(errors)
    list(JOIN errors "\n  " message)
    message(FATAL_ERROR "Dependency rules violated:\n  ${message}")
  endif()
endfunction()
