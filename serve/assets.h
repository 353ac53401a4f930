// The page's files (serve/web/), embedded in the binary at build time by embed_assets.cmake, so
// the page works with no network and no files beside the executable.
#pragma once

#include <string_view>
#include <vector>

namespace ps::serve {

struct Asset {
  std::string_view path;  ///< URL path: "/index.html", "/app.js", ...
  std::string_view body;
};

/// Every embedded file (generated assets.cpp).
const std::vector<Asset>& web_assets();

/// Content type by file extension ("text/html; charset=utf-8", ...).
std::string_view mime_type(std::string_view path);

}  // namespace ps::serve
