# What `cmake --install` and CPack ship (docs/install.md). Components:
#   ava      ava, ava-backend, ava-eval, the web UI, docs, man pages, bash
#            completion and the packaged systemd user unit
#   desktop  ava-desktop with its .desktop file and icon (QML is compiled in)
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
    install(TARGETS ava-desktop RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT desktop)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/dev.ava.Ava.desktop"
      DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT desktop)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/dev.ava.Ava.svg"
      DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT desktop)
  endif()

  set(CPACK_PACKAGE_NAME ava)
  set(CPACK_PACKAGE_VENDOR "Ava")
  set(CPACK_PACKAGE_CONTACT "Ava developers <ava@localhost>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_GENERATOR DEB)
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL ava desktop)
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
  include(CPack)
endfunction()
