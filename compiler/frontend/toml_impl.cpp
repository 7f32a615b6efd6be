// compiler/frontend/toml_impl.cpp — toml++'s implementation, compiled once into the front-end
// (every other unit includes its headers with TOML_HEADER_ONLY=0, compiler/CMakeLists.txt), so
// no binary loads the shared libtomlplusplus and, with it, the shared libstdc++.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
