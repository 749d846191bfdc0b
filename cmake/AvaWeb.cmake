# The web UI (web/): its API types generated from the protocol package, then
# bundled by Vite into <build>/web/dist, where `ava --serve` finds it beside
# the binaries. `scripts/setup` installs its npm dependencies (npm ci).
function(ava_add_web_ui)
  set(web_dir "${PROJECT_SOURCE_DIR}/web")
  if(NOT EXISTS "${web_dir}/package.json")
    return()
  endif()
  find_program(AVA_NPM npm REQUIRED)
  set(types "${web_dir}/src/api/protocol.gen.ts")
  set(dist "${PROJECT_BINARY_DIR}/web/dist")
  set(AVA_WEB_DIST "${dist}" PARENT_SCOPE)
  add_custom_command(OUTPUT "${types}"
    COMMAND ava-protocol-ts "${types}"
    DEPENDS ava-protocol-ts
    COMMENT "Generating the web UI's API types from the protocol package")
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS
    "${web_dir}/src/*.ts" "${web_dir}/src/*.tsx" "${web_dir}/src/*.css")
  list(REMOVE_ITEM sources "${types}")
  add_custom_command(OUTPUT "${dist}/index.html"
    COMMAND "${AVA_NPM}" run --silent build -- --outDir "${dist}" --emptyOutDir
    WORKING_DIRECTORY "${web_dir}"
    DEPENDS "${types}" ${sources} "${web_dir}/index.html" "${web_dir}/package.json" "${web_dir}/package-lock.json"
    COMMENT "Bundling the web UI")
  add_custom_target(web ALL DEPENDS "${dist}/index.html")
endfunction()
