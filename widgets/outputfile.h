#pragma once
// The output guard (base/outputpath.h) for the window and the views: every file the GUI writes
// (a view's export, a table's CSV, --screenshot) goes through these, never over or into an input
// and never replacing anything but a regular file; the refusal comes back as text.
#include <QByteArray>
#include <QString>

#include <string>
#include <vector>

namespace qsw {

// qs::checkOutputPath(path, inputs, File): false with `error` set when `path` may not be written.
bool checkOutputFile(const QString& path, const std::vector<std::string>& inputs, QString* error);
// qs::writeOutputFile: `bytes` to `path`, atomically, after the same check. False with `error` set.
bool writeOutputFile(const QString& path, const std::vector<std::string>& inputs, const QByteArray& bytes,
                     QString* error);

} // namespace qsw
