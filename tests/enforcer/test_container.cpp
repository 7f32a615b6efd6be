// Unit tests of the signs a refusal's container hint rests on (enforcer/container.h): a
// `container=` variable in PID 1's environment, and the Seccomp line of /proc/self/status;
// and that no hint is added for no cause.
#include <doctest/doctest.h>

#include <string>

#include "container.h"

namespace {

bool names_container(const std::string &environ)
{
    return environ_names_container(environ.data(), environ.size());
}

}  // namespace

TEST_CASE("container: container= in PID 1's environment")
{
    using namespace std::string_literals;
    CHECK(names_container("PATH=/usr/bin\0container=podman\0HOME=/root\0"s));
    CHECK(names_container("container=lxc"s)); /* the last entry may lack its NUL */
    CHECK_FALSE(names_container("PATH=/usr/bin\0HOME=/root\0"s));
    CHECK_FALSE(names_container("container=\0"s));            /* set to nothing */
    CHECK_FALSE(names_container("my_container=docker\0"s));   /* another name */
    CHECK_FALSE(names_container("X=1\0container_id=abc\0"s)); /* another name */
    CHECK_FALSE(names_container("X=container=docker\0"s));    /* inside a value */
    CHECK_FALSE(names_container(""s));
}

TEST_CASE("container: a seccomp filter in /proc/self/status")
{
    CHECK(status_has_seccomp_filter("Name:\tsh\nNoNewPrivs:\t0\nSeccomp:\t2\nSeccomp_filters:\t1\n"));
    CHECK_FALSE(status_has_seccomp_filter("Name:\tsh\nSeccomp:\t0\nSeccomp_filters:\t0\n"));
    CHECK_FALSE(status_has_seccomp_filter("Name:\tsh\nSeccomp_filters:\t2\n")); /* not the Seccomp line */
    CHECK_FALSE(status_has_seccomp_filter("Name:\tsh\n"));
    CHECK_FALSE(status_has_seccomp_filter(""));
}

TEST_CASE("container: no cause, no hint")
{
    CHECK(std::string(container_hint(FIX_NONE)).empty());
}
