#!/usr/bin/env bash
# Installs the Debian packages the test suites drive for real (Python client, QEMU, libvirt, etcd)
# when they are missing. Idempotent: a machine that has them pays one `dpkg -s` each.
# Under CI=true a package that cannot be installed fails the run instead of skipping suites.
set -euo pipefail

want=(python3-kubernetes qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients etcd-server etcd-client)
missing=()
for p in "${want[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "system-deps: missing ${missing[*]} and cannot install (need root and apt-get)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 0
  fi
  echo "system-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libvirt re-probes QEMU on every call when /dev/kvm is not group-accessible (44 s a define).
if [ -e /dev/kvm ] && [ "$(id -u)" = 0 ]; then
  getent group kvm >/dev/null || groupadd -r kvm
  chgrp kvm /dev/kvm 2>/dev/null || true
  chmod 660 /dev/kvm 2>/dev/null || true
fi
