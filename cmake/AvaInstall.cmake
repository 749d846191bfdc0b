# What `cmake --install` and CPack ship (docs/install.md). Components:
#   ava      ava, ava-backend, ava-eval, the web UI, docs, man pages, bash
#            completion and the packaged systemd user unit
#   desktop  ava-desktop with its .desktop file and icon (QML is compiled in)
#   dev      for embedders: the agent package and the packages under it as
#            static libraries, their headers, and AvaConfig.cmake, so that
#            find_package(Ava) gives Ava::agent (examples/embed)
# The Debian packages come from CPack's DEB generator, one per component.
include(GNUInstallDirs)

function(ava_add_install_rules)
  install(TARGETS ava ava-backend ava-eval RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ava)
  if(DEFINED AVA_WEB_DIST)
    # Where find_web_root() looks from an installed binary: <prefix>/share/ava/web.
    install(DIRECTORY "${AVA_WEB_DIST}/" DESTINATION ${CMAKE_INSTALL_DATADIR}/ava/web COMPONENT ava)
  endif()
  file(GLOB docs "${PROJECT_SOURCE_DIR}/docs/*.md")
  install(FILES "${PROJECT_SOURCE_DIR}/README.md" ${docs}
    DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ava)
  install(FILES "${PROJECT_SOURCE_DIR}/packaging/completions/ava.bash"
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ava COMPONENT ava)

  install(FILES "${PROJECT_SOURCE_DIR}/packaging/ava-backend.service"
    DESTINATION lib/systemd/user COMPONENT ava)

  # Man pages from the binaries' own --help (help2man), so they never drift.
  find_program(AVA_HELP2MAN help2man)
  if(AVA_HELP2MAN)
    set(man_dir "${PROJECT_BINARY_DIR}/packaging/man")
    set(pages "")
    set(summary_ava "a native coding agent")
    set(summary_ava-backend "the persistent Ava backend")
    foreach(program ava ava-backend)
      set(page "${man_dir}/${program}.1")
      add_custom_command(OUTPUT "${page}"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${man_dir}"
        COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 AVA_HOME=${man_dir}/home
                "${AVA_HELP2MAN}" --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
                "--name=${summary_${program}}"
                --output "${page}" "$<TARGET_FILE:${program}>"
        DEPENDS ${program}
        COMMENT "Writing the ${program}(1) manual page")
      list(APPEND pages "${page}")
    endforeach()
    add_custom_target(man ALL DEPENDS ${pages})
    install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ava)
  endif()

  if(TARGET ava-desktop)
    install(TARGETS ava-desktop ava-pdf-render RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT desktop)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/dev.ava.Ava.desktop"
      DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT desktop)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/dev.ava.Ava.svg"
      DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT desktop)
  endif()

  ava_add_dev_install_rules()

  set(CPACK_PACKAGE_NAME ava)
  set(CPACK_PACKAGE_VENDOR "Ava")
  set(CPACK_PACKAGE_CONTACT "Ava developers <ava@localhost>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_GENERATOR DEB)
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL ava desktop dev)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_SECTION devel)
  set(CPACK_DEBIAN_AVA_PACKAGE_NAME ava)
  set(CPACK_DEBIAN_DESKTOP_PACKAGE_NAME ava-desktop)
  # The QML modules are loaded at run time, so shlibdeps cannot see them.
  set(CPACK_DEBIAN_DESKTOP_PACKAGE_DEPENDS
    "ava (= ${PROJECT_VERSION}), qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-layouts, qml6-module-qtquick-window, qml6-module-qtquick-templates, qml6-module-qtqml-workerscript")
  set(CPACK_DEBIAN_AVA_PACKAGE_RECOMMENDS "openssh-client, git, ca-certificates")
  # Debug info stays in the build tree; the packages carry stripped binaries.
  set(CPACK_STRIP_FILES ON)
  set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
  set(CPACK_COMPONENT_AVA_DESCRIPTION
    "Ava: the ava command line, the ava-backend daemon and the web UI")
  set(CPACK_COMPONENT_DESKTOP_DESCRIPTION "Ava's Qt Quick desktop workbench")
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME ava-dev)
  set(CPACK_COMPONENT_DEV_DESCRIPTION
    "Ava's agent as a C++ library: headers, static libraries and CMake package (Ava::agent)")
  # What the exported targets name (AvaConfig.cmake finds them).
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libboost-dev (>= 1.81), nlohmann-json3-dev, libspdlog-dev, libfmt-dev, libzstd-dev, libssl-dev")
  include(CPack)
endfunction()

# The dev component: Ava::agent and what it is built on, as an embedder links
# it (find_package(Ava) then target_link_libraries(app Ava::agent)).
set(AVA_EMBED_PACKAGES agent session llm tool policy prompts proc content transport base)

function(ava_add_dev_install_rules)
  include(CMakePackageConfigHelpers)
  set(targets ava_fmt ava_spdlog)
  foreach(package IN LISTS AVA_EMBED_PACKAGES)
    set_target_properties(ava_${package} PROPERTIES EXPORT_NAME ${package})
    list(APPEND targets ava_${package})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/ava/${package}"
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ava COMPONENT dev)
  endforeach()
  set_target_properties(ava_fmt PROPERTIES EXPORT_NAME fmt_compiled)
  set_target_properties(ava_spdlog PROPERTIES EXPORT_NAME spdlog_compiled)
  install(TARGETS ${targets} EXPORT AvaTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/ava COMPONENT dev)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Ava)
  install(EXPORT AvaTargets NAMESPACE Ava:: DESTINATION ${cmake_dir} COMPONENT dev)
  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/AvaConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/packaging/AvaConfig.cmake" INSTALL_DESTINATION ${cmake_dir})
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/packaging/AvaConfigVersion.cmake"
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/packaging/AvaConfig.cmake"
                "${PROJECT_BINARY_DIR}/packaging/AvaConfigVersion.cmake"
    DESTINATION ${cmake_dir} COMPONENT dev)
endfunction()
