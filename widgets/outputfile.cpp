#include "outputfile.h"

#include "base/error.h"
#include "base/outputpath.h"

namespace qsw {

bool checkOutputFile(const QString& path, const std::vector<std::string>& inputs, QString* error)
{
    try {
        qs::checkOutputPath(path.toStdString(), inputs, qs::OutputKind::File);
    } catch (const qs::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool writeOutputFile(const QString& path, const std::vector<std::string>& inputs, const QByteArray& bytes,
                     QString* error)
{
    try {
        qs::writeOutputFile(path.toStdString(), inputs, std::string_view(bytes.constData(), size_t(bytes.size())));
    } catch (const qs::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

} // namespace qsw
