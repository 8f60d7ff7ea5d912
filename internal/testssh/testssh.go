// Package testssh runs private OpenSSH servers on 127.0.0.1 for tests, so that tmux on this
// machine can be reached as "another host" with nothing leaving the machine: a user key and
// host keys generated into a temp dir, an ssh client config file of the test's own (ssh -F)
// and a known_hosts of its own. Cleanup kills only the sshd processes it started.
package testssh

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/procfs"
)

// sshdPath is where Debian's openssh-server puts sshd; it must be run by absolute path.
const sshdPath = "/usr/sbin/sshd"

// Require skips the test when OpenSSH's client, server or ssh-keygen is missing, or when sshd
// cannot run here (its privilege separation directory needs root to create).
func Require(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (package openssh-client)", bin)
		}
	}
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skip("sshd is not installed (package openssh-server)")
	}
	if _, err := os.Stat("/run/sshd"); err != nil {
		if os.Getuid() != 0 {
			t.Skip("sshd needs /run/sshd, which only root can create")
		}
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Skipf("creating sshd's /run/sshd: %v", err)
		}
	}
}

// Net is a set of test hosts sharing one user key, one known_hosts and one client config.
type Net struct {
	t          testing.TB
	Dir        string // the temp dir holding keys, configs and each sshd's files
	Config     string // the ssh client config file: pass it as ssh -F
	user       string
	key        string // the user's private key; its public half is authorized by every sshd
	otherKey   string // a key no sshd authorizes
	knownHosts string

	mu    sync.Mutex
	hosts []entry
}

type entry struct {
	name, extra string
	port        int
}

// New makes the keys and an empty client config.
func New(t testing.TB) *Net {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("", "ts") // short: sockets live below it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	n := &Net{t: t, Dir: dir, Config: filepath.Join(dir, "ssh_config"), user: u.Username,
		key: filepath.Join(dir, "id"), otherKey: filepath.Join(dir, "id_other"), knownHosts: filepath.Join(dir, "known_hosts")}
	keygen(t, n.key)
	keygen(t, n.otherKey)
	pub, err := os.ReadFile(n.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	n.writeConfig()
	return n
}

func keygen(t testing.TB, path string) {
	t.Helper()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tmux-mcp-test", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

// Sshd is one running OpenSSH server: one test host.
type Sshd struct {
	n    *Net
	Name string // its host name in the client config
	Port int
	// TmuxTmpdir is TMUX_TMPDIR in the sessions it starts (and HOME is Home), so `tmux -L x`
	// through it reaches the socket SocketPath("x").
	TmuxTmpdir, Home string
	dir, conf, log   string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error // receives the running sshd's exit
}

// Start starts an sshd on a free port of 127.0.0.1 and names it in the client config.
func (n *Net) Start(name string) *Sshd {
	n.t.Helper()
	d := &Sshd{n: n, Name: name, dir: filepath.Join(n.Dir, name)}
	d.TmuxTmpdir, d.Home = filepath.Join(d.dir, "t"), filepath.Join(d.dir, "home")
	for _, p := range []string{d.dir, d.TmuxTmpdir, d.Home} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			n.t.Fatal(err)
		}
	}
	hostKey := filepath.Join(d.dir, "host_key")
	keygen(n.t, hostKey)
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		n.t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	n.appendKnownHost(name + " " + f[0] + " " + f[1] + "\n")
	d.conf, d.log = filepath.Join(d.dir, "sshd_config"), filepath.Join(d.dir, "sshd.log")
	for try := 0; ; try++ {
		d.Port = freePort(n.t)
		d.writeConfig(hostKey)
		if err := d.start(); err == nil {
			break
		} else if try == 4 {
			n.t.Fatalf("starting sshd: %v\n%s", err, d.Log())
		}
	}
	n.t.Cleanup(d.Kill)
	n.add(entry{name: name, port: d.Port})
	return d
}

func (d *Sshd) writeConfig(hostKey string) {
	conf := strings.Join([]string{
		"ListenAddress 127.0.0.1",
		"Port " + strconv.Itoa(d.Port),
		"HostKey " + hostKey,
		"PidFile none",
		"AuthorizedKeysFile " + filepath.Join(d.n.Dir, "authorized_keys"),
		"AuthenticationMethods publickey",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"AllowUsers " + d.n.user,
		"StrictModes no",
		"UsePAM no",
		"PrintMotd no",
		"MaxSessions 64",
		"MaxStartups 64",
		"SetEnv TMUX_TMPDIR=" + d.TmuxTmpdir + " HOME=" + d.Home,
		"",
	}, "\n")
	if err := os.WriteFile(d.conf, []byte(conf), 0o600); err != nil {
		d.n.t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs sshd in the foreground (-D) and waits until it accepts connections.
func (d *Sshd) start() error {
	cmd := exec.Command(sshdPath, "-D", "-f", d.conf, "-E", d.log)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(d.Port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			d.mu.Lock()
			d.cmd, d.exited = cmd, exited
			d.mu.Unlock()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("sshd exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return fmt.Errorf("sshd did not listen on port %d in 10s", d.Port)
		}
	}
}

// Restart starts the sshd again on its port after Kill.
func (d *Sshd) Restart() {
	d.n.t.Helper()
	if err := d.start(); err != nil {
		d.n.t.Fatalf("restarting sshd: %v\n%s", err, d.Log())
	}
}

// Kill kills this sshd and every process it started (its connections and their sessions),
// as a host that goes away does: the connections drop at once.
func (d *Sshd) Kill() {
	d.mu.Lock()
	cmd, exited := d.cmd, d.exited
	d.cmd = nil
	d.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	pids := descendants(cmd.Process.Pid)
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	<-exited
	// SIGKILL is delivered before kill(2) returns to a process that is not blocked in the
	// kernel uninterruptibly; wait until the killed ones are gone or zombies (their sockets
	// closed), at most 5 s.
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// descendants lists pid's children, theirs, and so on.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		kids, _ := procfs.Children(p)
		for k := range kids {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

// SocketPath is the socket `tmux -L name` reaches in this host's sessions.
func (d *Sshd) SocketPath(name string) string {
	return filepath.Join(d.TmuxTmpdir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// Log returns what sshd logged.
func (d *Sshd) Log() string {
	b, _ := os.ReadFile(d.log)
	return string(b)
}

// AddRefusedKey names another host on d's port that offers a key d does not authorize.
func (n *Net) AddRefusedKey(name string, d *Sshd) {
	n.add(entry{name: name, port: d.Port, extra: "  HostKeyAlias " + d.Name + "\n  IdentityFile " + n.otherKey + "\n"})
}

// AddClosed names a host on a port where nothing listens.
func (n *Net) AddClosed(name string) {
	n.add(entry{name: name, port: freePort(n.t)})
}

func (n *Net) add(e entry) {
	n.mu.Lock()
	n.hosts = append(n.hosts, e)
	n.mu.Unlock()
	n.writeConfig()
}

func (n *Net) appendKnownHost(line string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f, err := os.OpenFile(n.knownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		n.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		n.t.Fatal(err)
	}
}

// writeConfig writes the client config: each host's own entry first (ssh takes the first value
// it reads for each option), then what every host shares.
func (n *Net) writeConfig() {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b bytes.Buffer
	for _, e := range n.hosts {
		fmt.Fprintf(&b, "Host %s\n  HostName 127.0.0.1\n  Port %d\n%s", e.name, e.port, e.extra)
		if !strings.Contains(e.extra, "HostKeyAlias") {
			fmt.Fprintf(&b, "  HostKeyAlias %s\n", e.name)
		}
		if !strings.Contains(e.extra, "IdentityFile") {
			// IdentityFile adds to a list: it is given per host, or a host meant to offer
			// another key would offer both.
			fmt.Fprintf(&b, "  IdentityFile %s\n", n.key)
		}
	}
	fmt.Fprintf(&b, "Host *\n  User %s\n  IdentitiesOnly yes\n  IdentityAgent none\n"+
		"  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  UpdateHostKeys no\n",
		n.user, n.knownHosts)
	if err := os.WriteFile(n.Config, b.Bytes(), 0o600); err != nil {
		n.t.Fatal(err)
	}
}
