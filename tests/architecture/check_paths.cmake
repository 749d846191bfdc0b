# Fails when the build, a test, a benchmark or a script names a path outside
# the checkout: a clone must build and pass its tests with nothing beside it
# (temp dirs and AVA_HOME aside, which are made at run time).
#
# A path leaves the checkout when it
#   - names the team's shared folder (`../shared`, `/work/shared`, ...),
#   - climbs above the checkout's root from a root variable
#     (`${PROJECT_SOURCE_DIR}/..`, `${sourceDir}/..`, `AVA_SOURCE_DIR "/.."`),
#   - climbs with more `../` than the file is deep (`../x` in a root file,
#     `../../x` in `tests/CMakeLists.txt`).
cmake_minimum_required(VERSION 3.25)
# SOURCE_DIR: the checkout (or a deliberately broken copy) to check; MIN_FILES:
# fewer files than this means SOURCE_DIR is wrong (20 by default).
set(globs "")
foreach(dir cmake src include tests bench scripts .ci packaging qml web/src web/test web/e2e)
  foreach(ext CMakeLists.txt *.cmake *.cpp *.hpp *.h *.py *.sh *.mjs *.js *.ts *.tsx *.json *.qml)
    list(APPEND globs "${SOURCE_DIR}/${dir}/${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE files LIST_DIRECTORIES false ${globs})
file(GLOB root_files LIST_DIRECTORIES false "${SOURCE_DIR}/CMakeLists.txt" "${SOURCE_DIR}/CMakePresets.json"
     "${SOURCE_DIR}/web/*.json" "${SOURCE_DIR}/web/*.ts" "${SOURCE_DIR}/web/*.html")
# Scripts without an extension.
file(GLOB scripts LIST_DIRECTORIES false "${SOURCE_DIR}/scripts/*" "${SOURCE_DIR}/.ci/*")
list(APPEND files ${root_files} ${scripts})
list(REMOVE_DUPLICATES files)

set(errors "")
set(count 0)
foreach(file IN LISTS files)
  file(RELATIVE_PATH rel "${SOURCE_DIR}" "${file}")
  # Never: installed packages, recorded data, the broken copies this check is
  # tested on, and this file (its patterns name what it looks for).
  if(rel MATCHES "(^|/)node_modules/|^tests/fixtures/|^tests/architecture/(bad_[a-z_]+/|check_paths)")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  # How many folders deep the file is: a relative climb of more leaves the checkout.
  string(REGEX MATCHALL "/" slashes "${rel}")
  list(LENGTH slashes depth)
  file(STRINGS "${file}" lines REGEX "\\.\\./|/work/|shared/fixtures")
  foreach(line IN LISTS lines)
    set(why "")
    if(line MATCHES "\\.\\./shared|/work/(shared|main|\\.library|\\.mirror)|shared/fixtures")
      set(why "names the shared folder beside the checkout")
    elseif(line MATCHES "(PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|AVA_SOURCE_DIR|sourceDir)[}\" ]*/\\.\\.([/\" ]|$)")
      set(why "climbs above the checkout's root")
    else()
      string(REGEX MATCHALL "(\\.\\./)+" climbs "${line}")
      foreach(climb IN LISTS climbs)
        string(LENGTH "${climb}" length)
        math(EXPR ups "${length} / 3")
        if(ups GREATER depth)
          set(why "climbs ${ups} folders from a file ${depth} deep")
        endif()
      endforeach()
    endif()
    if(why)
      string(STRIP "${line}" line)
      list(APPEND errors "${rel}: ${why}: ${line}")
    endif()
  endforeach()
endforeach()
if(NOT MIN_FILES)
  set(MIN_FILES 20)
endif()
if(count LESS MIN_FILES)
  message(FATAL_ERROR "path check found only ${count} files under ${SOURCE_DIR}: wrong SOURCE_DIR?")
endif()
if(errors)
  list(JOIN errors "\n  " message)
  message(FATAL_ERROR "Paths outside the checkout:\n  ${message}")
endif()
message(STATUS "no path outside the checkout in ${count} files")
