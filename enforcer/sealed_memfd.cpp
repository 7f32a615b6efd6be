/* enforcer/sealed_memfd.cpp — see sealed_memfd.h. */
#include "sealed_memfd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int sealed_memfd_create(const char *name)
{
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

bool sealed_memfd_seal(int fd)
{
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) == 0 &&
        lseek(fd, 0, SEEK_SET) == 0;
}
