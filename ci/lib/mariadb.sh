# shellcheck shell=bash
# ensure_mariadb: a MariaDB server binary (mariadbd) on PATH, installed with apt-get (as
# root, or with passwordless sudo, as on hosted runners) when missing. Returns 0 when there
# is one; otherwise prints `MDL_SKIP: reason` and returns 77 (the step then fails unless
# MDL_ALLOW_SKIP names it: ci/lib/common.sh).
ensure_mariadb() {
  export PATH="$PATH:/usr/sbin"
  command -v mariadbd >/dev/null 2>&1 && return 0
  echo "mariadbd not found; installing mariadb-server"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "MDL_SKIP: no mariadb-server, and it cannot be installed here (needs root or sudo)"
      return 77
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "MDL_SKIP: no mariadb-server, and no apt-get to install it"
    return 77
  fi
  if "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null &&
    command -v mariadbd >/dev/null 2>&1; then
    return 0
  fi
  echo "MDL_SKIP: apt-get could not install mariadb-server"
  return 77
}
