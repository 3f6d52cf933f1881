package giteastack

import (
	"fmt"
	"path/filepath"
	"strings"
)

// appINI is the whole server config: SQLite, loopback HTTP, no SSH, no mail, no sign-up.
// Running as root needs the explicit opt-in because CI and the dev box run tests as root.
func appINI(dir, static string, port int) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("APP_NAME = slipway")
	line("RUN_MODE = prod")
	line("I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true")
	line("WORK_PATH = %s", dir)
	line("[server]")
	line("PROTOCOL = http")
	line("HTTP_ADDR = 127.0.0.1")
	line("HTTP_PORT = %d", port)
	line("ROOT_URL = http://127.0.0.1:%d/", port)
	line("STATIC_ROOT_PATH = %s", static)
	line("APP_DATA_PATH = %s", filepath.Join(dir, "data"))
	line("DISABLE_SSH = true")
	line("START_SSH_SERVER = false")
	line("LFS_START_SERVER = false")
	line("OFFLINE_MODE = true")
	line("[database]")
	line("DB_TYPE = sqlite3")
	line("PATH = %s", filepath.Join(dir, "data", "gitea.db"))
	line("[repository]")
	line("ROOT = %s", filepath.Join(dir, "repos"))
	line("DEFAULT_BRANCH = main")
	line("[security]")
	line("INSTALL_LOCK = true")
	line("[service]")
	line("DISABLE_REGISTRATION = true")
	line("[mailer]")
	line("ENABLED = false")
	line("[session]")
	line("PROVIDER = memory")
	line("[cache]")
	line("ADAPTER = memory")
	line("[webhook]")
	line("ALLOWED_HOST_LIST = loopback")
	line("[log]")
	line("MODE = console")
	line("LEVEL = info")
	line("ROOT_PATH = %s", filepath.Join(dir, "log"))
	return b.String()
}
