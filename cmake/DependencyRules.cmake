# The one list of packages, in dependency order (src/ and tests/ add their
# folders from it; the include check reads it), and the dependency direction
# of the brief, enforced at configure time by target links and by the include
# check (tests/architecture/check_includes.cmake):
#
#   app (the mains) -> cli -> server -> {capabilities, httpd, registry, machine}
#   cli -> acp -> agent
#   capabilities -> {agent, mcp, store};  mcp -> {oauth, tool}
#   agent -> {session, llm, tool} -> {transport, proc, content, base}
#   desktop -> remote + machine + protocol + transport (never agent)
#
# A package may link and include only the packages listed for it (each edge
# listed is one the code uses), and no core package may reach Qt or the
# application packages, directly or through another target. `app` is not a
# library: src/app holds the two binaries' mains, and its entry here is for
# the include check.
set(AVA_PACKAGE_ORDER
  base content proc transport llm session tool policy prompts oauth mcp agent recording acp protocol
  store automation analytics registry machine service remote ansi terminal files httpd capabilities doctor server cli eval desktop)

set(AVA_ALLOWED_base "")
set(AVA_ALLOWED_content "")
set(AVA_ALLOWED_proc base)
set(AVA_ALLOWED_transport base)
set(AVA_ALLOWED_llm content transport base)
set(AVA_ALLOWED_session content base)
set(AVA_ALLOWED_tool content proc base)
set(AVA_ALLOWED_policy base)
set(AVA_ALLOWED_prompts base)
set(AVA_ALLOWED_oauth transport base)
set(AVA_ALLOWED_mcp oauth tool proc transport base)
set(AVA_ALLOWED_agent session llm tool policy prompts proc content base)
set(AVA_ALLOWED_recording llm session content base)
# the Agent Client Protocol bridge: editors' sessions as conversations.
set(AVA_ALLOWED_acp agent tool session llm prompts proc content base)
set(AVA_ALLOWED_protocol base)
set(AVA_ALLOWED_store base)
set(AVA_ALLOWED_automation store base)
set(AVA_ALLOWED_analytics session store llm prompts protocol content base)
set(AVA_ALLOWED_registry protocol base)
set(AVA_ALLOWED_machine transport base)
# remote machines over SSH (libssh2): ssh_config, known_hosts, machines.json, sessions.
set(AVA_ALLOWED_service machine proc base)
set(AVA_ALLOWED_remote machine transport proc base)
# terminal text for `ava chat`: Markdown and diffs to ANSI, made safe first.
set(AVA_ALLOWED_ansi base)
# interactive terminals: a shell on a pty for the web UI and the desktop.
set(AVA_ALLOWED_terminal proc base)
# a project's files as people browse them: tree, previews, quick open, watching.
set(AVA_ALLOWED_files protocol proc base)
set(AVA_ALLOWED_httpd machine protocol transport base)
set(AVA_ALLOWED_capabilities agent mcp oauth protocol proc store tool base)
set(AVA_ALLOWED_doctor capabilities machine llm proc base)
set(AVA_ALLOWED_server analytics automation capabilities httpd terminal files registry machine agent recording policy prompts protocol session llm oauth proc transport base)
set(AVA_ALLOWED_cli acp ansi transport server analytics automation capabilities doctor machine service remote mcp oauth agent recording policy prompts session llm proc base)
# eval has its own binary (ava-eval); ava and ava-backend never link it.
set(AVA_ALLOWED_eval recording agent session llm tool proc content base)
set(AVA_ALLOWED_app cli server eval base)
set(AVA_ALLOWED_desktop remote machine protocol transport base)

set(AVA_CORE_PACKAGES base content proc transport session llm tool policy prompts oauth mcp agent recording)
set(AVA_APP_TARGETS ava_server ava_cli ava_desktop ava_eval)
# Binaries that must not reach a package (the evaluation tools stay out of
# what users run every day).
set(AVA_FORBIDDEN_ava-backend ava_eval)
set(AVA_FORBIDDEN_ava ava_eval)

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
  foreach(binary IN ITEMS ava ava-backend)
    if(TARGET ${binary})
      _ava_link_closure(${binary} closure)
      foreach(forbidden IN LISTS AVA_FORBIDDEN_${binary})
        if(forbidden IN_LIST closure)
          list(APPEND errors "${binary} links ${forbidden}")
        endif()
      endforeach()
    endif()
  endforeach()
  if(errors)
    list(JOIN errors "\n  " message)
    message(FATAL_ERROR "Dependency rules violated:\n  ${message}")
  endif()
endfunction()
