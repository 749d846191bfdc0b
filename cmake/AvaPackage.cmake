# ava_add_package(NAME SOURCES ... DEPENDS ... [EXTERNAL ...])
#
# One package = one folder under src/ and include/ava/ = one namespace = one
# target ava_<NAME>. DEPENDS lists other packages (without the ava_ prefix) and
# is checked against the dependency direction in DependencyRules.cmake.
# Package dependencies are PUBLIC because package headers include each other's
# types; EXTERNAL libraries are PUBLIC too unless listed in PRIVATE_EXTERNAL.
function(ava_add_package name)
  cmake_parse_arguments(arg "" "" "SOURCES;DEPENDS;EXTERNAL;PRIVATE_EXTERNAL;DEFINITIONS" ${ARGN})
  set(target ava_${name})
  if(arg_SOURCES)
    add_library(${target} STATIC ${arg_SOURCES})
    set(scope PUBLIC)
    ava_project_warnings(${target})
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  # Installed (the dev component, AvaInstall.cmake) the headers are under <prefix>/include.
  target_include_directories(${target} ${scope} "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
                                                "$<INSTALL_INTERFACE:include>")
  if(arg_SOURCES)
    # Private headers live beside their .cpp files and are included from src/.
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src")
  endif()
  foreach(dep IN LISTS arg_DEPENDS)
    target_link_libraries(${target} ${scope} ava_${dep})
  endforeach()
  target_link_libraries(${target} ${scope} ${arg_EXTERNAL})
  if(arg_PRIVATE_EXTERNAL)
    target_link_libraries(${target} PRIVATE ${arg_PRIVATE_EXTERNAL})
  endif()
  if(arg_DEFINITIONS)
    target_compile_definitions(${target} ${scope} ${arg_DEFINITIONS})
  endif()
  set_property(TARGET ${target} PROPERTY AVA_PACKAGE_DEPENDS "${arg_DEPENDS}")
  set_property(GLOBAL APPEND PROPERTY AVA_PACKAGES ${name})
endfunction()

# Warnings for the project's own code only; third-party headers come in as
# system includes and are not affected.
function(ava_project_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wimplicit-fallthrough
    # Designated initializers leave defaulted members out on purpose.
    -Wno-missing-field-initializers
    # g++ 12 reports false -Wrestrict on std::string at -O2 (GCC PR 105329)
    # and, at -O1 and above, reads Asio's recycling coroutine-frame allocator
    # as a new/delete mismatch (GCC PR 109224).
    -Wno-restrict -Wno-mismatched-new-delete)
  if(AVA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# ava_add_executable(NAME [STATIC_RUNTIME] SOURCES ... LINK ...): a project
# binary with the project's warnings.
# STATIC_RUNTIME links libstdc++ and libgcc statically (not under the
# sanitizers, whose runtime must see the shared ones): a shipped binary with
# no shared C++ library starts without relocating thousands of symbols. It
# is also linked as a position-dependent executable: a PIE's ~29,000
# relative relocations write to (and so fault in) every page that holds a
# pointer at each start, and page faults are most of this VM's start-up
# cost (`ava --version`: 299 faults, 5.9 ms CPU as PIE; 170, 3.9 ms not).
# With AVA_ORDER_TEXT, gold lays out the functions scripts/text-order found
# at start-up first, so a start touches a few hundred contiguous text pages
# rather than pages all over the binary.
function(ava_add_executable name)
  cmake_parse_arguments(arg "STATIC_RUNTIME" "" "SOURCES;LINK" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  ava_project_warnings(${name})
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(${name} PRIVATE ${arg_LINK})
  if(arg_STATIC_RUNTIME AND NOT AVA_SANITIZE)
    target_link_options(${name} PRIVATE -static-libstdc++ -static-libgcc -no-pie)
    if(AVA_ORDER_TEXT)
      set(order "${PROJECT_SOURCE_DIR}/cmake/text-order.txt")
      target_link_options(${name} PRIVATE -fuse-ld=gold "LINKER:--section-ordering-file=${order}")
      set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${order}")
    endif()
  endif()
endfunction()
