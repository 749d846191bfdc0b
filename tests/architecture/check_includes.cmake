# Fails when a file of package P
#  - includes "ava/Q/..." for a Q that P may not use,
#  - includes another package's private header ("Q/...", from src/Q/),
#  - is a public header (include/ava/P/) that includes a private one,
#  - includes Beast without being allowed transport, which compiles Beast
#    once (BOOST_BEAST_SEPARATE_COMPILATION must reach every user of it),
#  - or is in a core package and includes a Qt header.
# Rules and the package list: cmake/DependencyRules.cmake.
cmake_minimum_required(VERSION 3.25)
# SOURCE_DIR: the tree to check; RULES: the rules file (the real one by default).
if(NOT RULES)
  set(RULES "${SOURCE_DIR}/cmake/DependencyRules.cmake")
endif()
include("${RULES}")
set(packages ${AVA_PACKAGE_ORDER} app)
list(JOIN packages "|" any_package)
set(errors "")
set(checked 0)
foreach(pkg IN LISTS packages)
  file(GLOB_RECURSE private_files "${SOURCE_DIR}/src/${pkg}/*.cpp" "${SOURCE_DIR}/src/${pkg}/*.hpp")
  file(GLOB_RECURSE public_files "${SOURCE_DIR}/include/ava/${pkg}/*.hpp")
  foreach(file IN LISTS private_files public_files)
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS includes)
      if(line MATCHES "[<\"]ava/([a-z_]+)/")
        set(dep ${CMAKE_MATCH_1})
        if(NOT dep STREQUAL pkg AND NOT dep IN_LIST AVA_ALLOWED_${pkg})
          list(APPEND errors "${file}: ${pkg} includes ava/${dep}/ (${line})")
        endif()
      elseif(line MATCHES "\"(${any_package})/")
        set(dep ${CMAKE_MATCH_1})
        if(NOT dep STREQUAL pkg)
          list(APPEND errors "${file}: ${pkg} includes a private header of ${dep} (${line})")
        elseif(file IN_LIST public_files)
          list(APPEND errors "${file}: a public header of ${pkg} includes a private one (${line})")
        endif()
      endif()
      if(line MATCHES "[<\"]boost/beast" AND NOT pkg STREQUAL "transport"
         AND NOT "transport" IN_LIST AVA_ALLOWED_${pkg})
        list(APPEND errors "${file}: ${pkg} includes Beast but may not use transport, which compiles it (${line})")
      endif()
      if(pkg IN_LIST AVA_CORE_PACKAGES AND line MATCHES "[<\"](Q[A-Z][A-Za-z]+|Qt[A-Za-z]+/)")
        list(APPEND errors "${file}: core package ${pkg} includes Qt (${line})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(errors)
  list(JOIN errors "\n  " message)
  message(FATAL_ERROR "Include rules violated:\n  ${message}")
endif()
message(STATUS "include rules hold (${checked} files)")
