/*
 * uidswitch: the sandbox's last wrapper. Run as root (with CAP_SETUID, CAP_SETGID and CAP_SETPCAP
 * at least), it drops every capability from every set, becomes UID:GID with no supplementary
 * groups, closes every descriptor above stderr, and execs the command.
 *
 *     uidswitch UID GID NO_NEW_PRIVS -- COMMAND [ARG...]
 *
 * It does what `setpriv --reuid=UID --regid=UID --clear-groups --inh-caps=-all
 * --bounding-set=-all [--no-new-privs]` does in rusty_hf's sandbox, statically linked so that the
 * exec costs ~0.5 ms of CPU instead of setpriv's ~2.2 ms (dynamic loading, locale, NSS lookups).
 * rusty_hf compiles it on first use (rusty_hf/sandbox/identity.py) and falls back to setpriv where
 * no C compiler is found. Part of rusty_hf, AGPL-3.0-only.
 *
 * Exit status: the command's; 125 when the switch itself fails (message on stderr, prefixed as
 * the sandbox's own errors are); 126/127 when the command cannot be executed / is not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SWITCH_FAILED 125
#define LAST_CAP 63 /* dropping a capability the kernel does not have fails with EINVAL: ignored */

static void fail(const char *what) {
    fprintf(stderr, "rusty_hf.sandbox: could not switch uid (%s: %s)\n", what, strerror(errno));
    exit(SWITCH_FAILED);
}

static unsigned long number(const char *text, const char *what) {
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno || *text == '\0' || *end != '\0' || value == 0 || value > 0xfffffffeUL) {
        errno = EINVAL;
        fail(what);
    }
    return value;
}

static void close_above_stderr(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 1024); fd++)
        close((int)fd);
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: uidswitch UID GID NO_NEW_PRIVS -- COMMAND [ARG...]\n");
        return SWITCH_FAILED;
    }
    uid_t uid = (uid_t)number(argv[1], "uid");
    gid_t gid = (gid_t)number(argv[2], "gid");
    int no_new_privs = strcmp(argv[3], "1") == 0;

    /* The bounding set first: dropping from it needs CAP_SETPCAP, gone after the uid switch. */
    for (int cap = 0; cap <= LAST_CAP; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            fail("PR_CAPBSET_DROP");
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        fail("PR_CAP_AMBIENT_CLEAR_ALL");
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2];
    if (syscall(SYS_capget, &header, caps) != 0)
        fail("capget");
    caps[0].inheritable = caps[1].inheritable = 0;
    if (syscall(SYS_capset, &header, caps) != 0)
        fail("capset");

    if (setgroups(0, NULL) != 0)
        fail("setgroups");
    if (setresgid(gid, gid, gid) != 0)
        fail("setresgid");
    if (setresuid(uid, uid, uid) != 0)
        fail("setresuid");

    /* Verify: every uid and gid switched, and no capability left in any set. */
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0)
        fail("getresuid");
    if (ruid != uid || euid != uid || suid != uid || rgid != gid || egid != gid || sgid != gid) {
        errno = EPERM;
        fail("ids did not change");
    }
    if (syscall(SYS_capget, &header, caps) != 0)
        fail("capget");
    for (int i = 0; i < 2; i++)
        if (caps[i].effective || caps[i].permitted || caps[i].inheritable) {
            errno = EPERM;
            fail("capabilities left");
        }
    for (int cap = 0; cap <= LAST_CAP; cap++)
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) > 0) {
            errno = EPERM;
            fail("bounding set left");
        }
    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail("PR_SET_NO_NEW_PRIVS");

    close_above_stderr();
    execvp(argv[5], argv + 5);
    int code = errno == ENOENT ? 127 : 126;
    fprintf(stderr, "uidswitch: failed to execute %s: %s\n", argv[5], strerror(errno));
    return code;
}
