# Windows x86-64 with Debian's mingw-w64 (gcc-mingw-w64-x86-64-win32), for the
# runtime library alone (tools/cross.sh):
#   cmake -S . -B build-cross-windows --toolchain cmake/toolchains/mingw-w64-x86_64.cmake \
#         -DSINEW_BUILD_TOOLS=OFF -DSINEW_BUILD_TESTS=OFF
# Headers and libraries come from the target's root alone; programs run at build
# time (glslc) are the build machine's.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

# binutils (ld, objcopy, ar) are found by this prefix.
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)

set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
