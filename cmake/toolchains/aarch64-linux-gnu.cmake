# aarch64 (arm64) Linux with Debian's cross compiler (gcc-aarch64-linux-gnu),
# for the runtime library alone (tools/cross.sh):
#   cmake -S . -B build-cross-aarch64 --toolchain cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DSINEW_BUILD_TOOLS=OFF -DSINEW_BUILD_TESTS=OFF
# Headers and libraries come from the target's root alone; programs run at build
# time (glslc) are the build machine's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# binutils (ld, objcopy, ar) are found by this prefix.
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
