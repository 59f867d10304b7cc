#pragma once
// The demo checkpoint embedded at build time (resources/, made by quantscope-mkdemo with
// the project's own writers). Readers map files, so it is copied out to the cache first.
#include <QString>

namespace qsw {

// Copies the embedded demo folder to the cache (once per version) and returns its path.
// Throws qs::Error when the build has no demo or the cache cannot be written.
QString extractDemoCheckpoint();

} // namespace qsw
