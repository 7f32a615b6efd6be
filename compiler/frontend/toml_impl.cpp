// compiler/frontend/toml_impl.cpp — toml++'s implementation, compiled once into the front-end
// (every other unit includes its headers with TOML_HEADER_ONLY=0, compiler/CMakeLists.txt), so
// no binary loads the shared libtomlplusplus and, with it, the shared libstdc++.
//
// toml++'s own assertions check its parser's state, and hostile text reaches states they call
// impossible ('[= 1' asserts in parse_key, and the parser then reports the error): off here in
// every build, as in Debian's shared library (built with NDEBUG), so that a build without NDEBUG
// (the fuzz build) reads a policy as the shipped compiler does, and refuses it instead of
// aborting. tests/fuzz/corpus/table-header-equals.toml is the input. (A real bug of toml++'s
// is fixed in the headers the front-end includes: cmake/toml_fixes.cmake.)
#define TOML_ASSERT(expr) static_cast<void>(0)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
