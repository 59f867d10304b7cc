# Cross build for arm64 on Debian's multiarch (bash .ci/install-deps --arm64 installs what it needs:
# crossbuild-essential-arm64, Qt and QCustomPlot for arm64, qemu-user):
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Programs built for arm64 (the demo maker, the test suites) run under qemu-aarch64 with the
# multiarch loader and libraries (/lib/ld-linux-aarch64.so.1, /lib/aarch64-linux-gnu from libc6:arm64,
# which Qt for arm64 brings). Not with -L /usr/aarch64-linux-gnu: that loads the cross toolchain's
# ld.so (libc6-arm64-cross, another build of glibc) beside the multiarch libc.so.6, and the two
# deadlock at the first pthread_create.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(PKG_CONFIG_EXECUTABLE aarch64-linux-gnu-pkg-config CACHE FILEPATH "")
# Qt's code generators (moc, rcc, uic, lrelease) are the build machine's.
set(QT_HOST_PATH /usr)
set(QT_HOST_PATH_CMAKE_DIR /usr/lib/x86_64-linux-gnu/cmake)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
