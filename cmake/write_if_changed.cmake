# ps_write_if_changed(PATH CONTENT): writes CONTENT to PATH unless PATH already holds exactly
# that, so a generated source that did not change is not recompiled. Included by the build-time
# scripts that generate sources (export/embed_sources.cmake, serve/embed_assets.cmake).
function(ps_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()
