"""Finding a process's own cgroup dirs from /proc text: hybrid v1+v2, pure v2, container subtrees."""

from __future__ import annotations

from rusty_hf.sandbox.cgroup_discovery import cgroup_dir, parse_mountinfo, parse_proc_cgroup

HYBRID_CGROUP = "8:pids:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/x\n0::/\n"
HYBRID_MOUNTS = (
    "30 25 0:26 / /sys/fs/cgroup/pids rw,relatime shared:9 - cgroup cgroup rw,pids\n"
    "31 25 0:27 / /sys/fs/cgroup/memory rw,relatime shared:10 - cgroup cgroup rw,memory\n"
    "32 25 0:28 / /sys/fs/cgroup/unified rw,relatime shared:11 - cgroup2 cgroup2 rw\n"
    "33 25 0:29 / /proc rw - proc proc rw\n"
)


def test_hybrid_host_maps_each_controller_to_its_own_hierarchy():
    own, mounts = parse_proc_cgroup(HYBRID_CGROUP), parse_mountinfo(HYBRID_MOUNTS)
    assert cgroup_dir("pids", own, mounts) == "/sys/fs/cgroup/pids"
    assert cgroup_dir("memory", own, mounts) == "/sys/fs/cgroup/memory/process_api/abc"
    assert cgroup_dir("", own, mounts) == "/sys/fs/cgroup/unified"
    assert cgroup_dir("freezer", own, mounts) is None


def test_pure_v2_host_uses_the_unified_path():
    own = parse_proc_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n")
    mounts = parse_mountinfo("28 22 0:24 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n")
    assert cgroup_dir("", own, mounts) == "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope"
    assert cgroup_dir("pids", own, mounts) is None  # v2 controllers are found through the unified dir


def test_container_mounting_a_subtree_resolves_relative_to_the_mount_root():
    own = parse_proc_cgroup("0::/docker/c0ffee/app\n")
    mounts = parse_mountinfo("40 35 0:30 /docker/c0ffee /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n")
    assert cgroup_dir("", own, mounts) == "/sys/fs/cgroup/app"
    elsewhere = parse_proc_cgroup("0::/other\n")
    assert cgroup_dir("", elsewhere, mounts) is None  # not visible through this mount
