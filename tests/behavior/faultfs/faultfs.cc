// faultfs: an LD_PRELOAD shim that makes the disk fail under a running ketch,
// for behaviour tests (tests/behavior/test_disk_faults.py). It interposes
// pwritev and fdatasync; on a segment file (a path ending in ".log") it reads
// the control file named by $KETCH_FAULTFS_CTL (re-read when its mtime or size
// changes) and, by its first word:
//   ok         pass every call through
//   enospc     pwritev fails with ENOSPC, writing nothing (a full disk)
//   eio-sync   fdatasync fails with EIO (the kernel lost dirty pages)
// Everything else (SQLite files, indexes, other processes' files) passes.

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

namespace {

enum mode { MODE_OK, MODE_ENOSPC, MODE_EIO_SYNC };

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
struct timespec seen_mtime;
off_t seen_size = -1;
enum mode current = MODE_OK;

enum mode read_mode(void) {
    const char* ctl = getenv("KETCH_FAULTFS_CTL");
    struct stat st;
    if (!ctl || stat(ctl, &st) != 0) return MODE_OK;
    pthread_mutex_lock(&mu);
    if (st.st_size != seen_size || st.st_mtim.tv_sec != seen_mtime.tv_sec || st.st_mtim.tv_nsec != seen_mtime.tv_nsec) {
        char word[32] = {0};
        FILE* f = fopen(ctl, "re");
        if (f) {
            if (fscanf(f, "%31s", word) != 1) word[0] = 0;
            fclose(f);
        }
        current = strcmp(word, "enospc") == 0 ? MODE_ENOSPC : strcmp(word, "eio-sync") == 0 ? MODE_EIO_SYNC : MODE_OK;
        seen_mtime = st.st_mtim;
        seen_size = st.st_size;
    }
    enum mode m = current;
    pthread_mutex_unlock(&mu);
    return m;
}

int is_segment(int fd) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 4) return 0;
    path[n] = 0;
    return strcmp(path + n - 4, ".log") == 0;
}

enum mode mode_for(int fd) { return is_segment(fd) ? read_mode() : MODE_OK; }

}  // namespace

extern "C" {

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
    using fn = ssize_t (*)(int, const struct iovec*, int, off_t);
    static fn real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "pwritev"));
    if (mode_for(fd) == MODE_ENOSPC) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, iov, iovcnt, offset);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
    return pwritev(fd, iov, iovcnt, offset);
}

int fdatasync(int fd) {
    using fn = int (*)(int);
    static fn real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "fdatasync"));
    if (mode_for(fd) == MODE_EIO_SYNC) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

}  // extern "C"
