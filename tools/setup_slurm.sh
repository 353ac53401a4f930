#!/usr/bin/env bash
# Installs Debian's Slurm daemons, clients and munge for the slow real-Slurm test
# (tests/scaling/slurm_localhost.sh); a cluster's own Slurm needs none of this.
#   tools/setup_slurm.sh
set -euo pipefail
PACKAGES=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup_slurm: all packages present"
  exit 0
fi
echo "setup_slurm: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d 101: the packages' init scripts must not start daemons here (the test starts its
# own, configured for localhost, and stops them by PID).
tmp_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  tmp_policy=1
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
if [ -n "$tmp_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
