// Anchor for the resources library: qt_add_resources attaches the compiled .qrc to it.
namespace qs::resources {
int anchor()
{
    return 0;
}
} // namespace qs::resources
