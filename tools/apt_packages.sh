# Sourced by the setup scripts: install_missing NAME PACKAGE... installs with apt-get (sudo when
# not root) the Debian packages not yet installed, and says which; NAME prefixes its lines.
install_missing() {
  local name=$1
  shift
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "$name: all packages present"
    return
  fi
  echo "$name: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
