// Package testssh runs private OpenSSH servers on 127.0.0.1 for tests and benchmarks, so that
// tmux on this machine can be reached as "another host" with nothing leaving the machine: a
// user key and host keys generated into a temp dir, an ssh client config file of its own (ssh
// -F) and a known_hosts of its own. It kills only the sshd processes it started.
package testssh

import (
	"bytes"
	"errors"
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

	"github.com/tmux-mcp/tmux-mcp/internal/inherit"
	"github.com/tmux-mcp/tmux-mcp/internal/procfs"
)

// sshdPath is where Debian's openssh-server puts sshd; it must be run by absolute path.
const sshdPath = "/usr/sbin/sshd"

// Available says why OpenSSH's client, server or ssh-keygen cannot be used here, or nil. sshd
// needs its privilege separation directory, which it makes when it can (as root).
func Available() error {
	for _, bin := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s is not installed (package openssh-client)", bin)
		}
	}
	if _, err := os.Stat(sshdPath); err != nil {
		return errors.New("sshd is not installed (package openssh-server)")
	}
	if _, err := os.Stat("/run/sshd"); err != nil {
		if os.Getuid() != 0 {
			return errors.New("sshd needs /run/sshd, which only root can create")
		}
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			return fmt.Errorf("creating sshd's /run/sshd: %v", err)
		}
	}
	return nil
}

// Require skips the test when Available says no.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
}

// Net is a set of test hosts sharing one user key, one known_hosts and one client config.
type Net struct {
	t          testing.TB // nil outside tests (Open)
	Dir        string     // the temp dir holding keys, configs and each sshd's files
	Config     string     // the ssh client config file: pass it as ssh -F
	user       string
	key        string // the user's private key; its public half is authorized by every sshd
	otherKey   string // a key no sshd authorizes
	knownHosts string

	mu      sync.Mutex
	hosts   []entry
	sshds   []*Sshd
	closers []func() error // silent hosts' listeners
}

type entry struct {
	name, extra string
	port        int
}

// New makes the keys and an empty client config in a temp dir; the test's cleanup kills the
// sshds and removes the dir.
func New(t testing.TB) *Net {
	t.Helper()
	Require(t)
	n, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	n.t = t
	t.Cleanup(n.Close)
	return n
}

// Open is New outside a test: the caller calls Close.
func Open() (*Net, error) {
	dir, err := os.MkdirTemp("", "ts") // short: sockets live below it
	if err != nil {
		return nil, err
	}
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	n := &Net{Dir: dir, Config: filepath.Join(dir, "ssh_config"), user: u.Username,
		key: filepath.Join(dir, "id"), otherKey: filepath.Join(dir, "id_other"), knownHosts: filepath.Join(dir, "known_hosts")}
	err = errors.Join(keygen(n.key), keygen(n.otherKey))
	if err == nil {
		var pub []byte
		if pub, err = os.ReadFile(n.key + ".pub"); err == nil {
			err = os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
		}
	}
	if err == nil {
		err = n.writeConfig()
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return n, nil
}

// Close kills every sshd of the net and removes its dir.
func (n *Net) Close() {
	n.mu.Lock()
	sshds, closers := n.sshds, n.closers
	n.mu.Unlock()
	for _, d := range sshds {
		d.Kill()
	}
	for _, c := range closers {
		c()
	}
	os.RemoveAll(n.Dir)
}

func keygen(path string) error {
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tmux-mcp-test", "-f", path).CombinedOutput(); err != nil {
		return fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	return nil
}

// must fails the test with err, or panics outside one (only the test helpers call it).
func (n *Net) must(err error) {
	if err == nil {
		return
	}
	if n.t == nil {
		panic(err)
	}
	n.t.Helper()
	n.t.Fatal(err)
}

// Sshd is one running OpenSSH server: one test host.
type Sshd struct {
	n    *Net
	Name string // its host name in the client config
	Port int
	// TmuxTmpdir is TMUX_TMPDIR in the sessions it starts (and HOME is Home), so `tmux -L x`
	// through it reaches the socket SocketPath("x"), and tmux-mcp makes its run scripts there,
	// apart from this machine's. Tmpdir is their TMPDIR.
	TmuxTmpdir, Home, Tmpdir string
	dir, conf, log           string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error // receives the running sshd's exit
}

// Start starts an sshd on a free port of 127.0.0.1 and names it in the client config, failing
// the test when it cannot.
func (n *Net) Start(name string) *Sshd {
	if n.t != nil {
		n.t.Helper()
	}
	d, err := n.Launch(name)
	n.must(err)
	return d
}

// Launch is Start returning its error.
func (n *Net) Launch(name string) (*Sshd, error) {
	d := &Sshd{n: n, Name: name, dir: filepath.Join(n.Dir, name)}
	d.TmuxTmpdir, d.Home, d.Tmpdir = filepath.Join(d.dir, "t"), filepath.Join(d.dir, "home"), filepath.Join(d.dir, "tmp")
	for _, p := range []string{d.dir, d.TmuxTmpdir, d.Home, d.Tmpdir} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
	}
	hostKey := filepath.Join(d.dir, "host_key")
	if err := keygen(hostKey); err != nil {
		return nil, err
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(pub))
	if err := n.appendKnownHost(name + " " + f[0] + " " + f[1] + "\n"); err != nil {
		return nil, err
	}
	d.conf, d.log = filepath.Join(d.dir, "sshd_config"), filepath.Join(d.dir, "sshd.log")
	for try := 0; ; try++ {
		if d.Port, err = freePort(); err == nil {
			if err = d.writeConfig(hostKey); err == nil {
				err = d.start()
			}
		}
		if err == nil {
			break
		}
		if try == 4 {
			return nil, fmt.Errorf("starting sshd: %v\n%s", err, d.Log())
		}
	}
	n.mu.Lock()
	n.sshds = append(n.sshds, d)
	n.mu.Unlock()
	return d, n.add(entry{name: name, port: d.Port})
}

func (d *Sshd) writeConfig(hostKey string) error {
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
		"SetEnv TMUX_TMPDIR=" + d.TmuxTmpdir + " HOME=" + d.Home + " TMPDIR=" + d.Tmpdir + " PATH=" + sessionPath(),
		"",
	}, "\n")
	return os.WriteFile(d.conf, []byte(conf), 0o600)
}

// sshPath is the PATH sshd gives a session unless told otherwise (Debian's default).
const sshPath = "/usr/local/bin:/usr/bin:/bin:/usr/games"

// sessionPath is the PATH of the sessions an sshd starts: sshd's own, after the directory of
// the tmux this test runs (the first on its PATH), so that the "other host" runs the same
// tmux version as the servers the test starts itself; a tmux client of another version than
// its server's fails ("server exited unexpectedly"). A directory sshd_config cannot carry
// unquoted is left out (the system's tmux is found then).
func sessionPath() string {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return sshPath
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	dir := filepath.Dir(bin)
	if strings.ContainsAny(dir, " \t\"'\\:") {
		return sshPath
	}
	return dir + ":" + sshPath
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs sshd in the foreground (-D) and waits until it accepts connections.
func (d *Sshd) start() error {
	inherit.OnlyStdio() // an sshd left behind by a killed test process must not keep its pipes
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
			<-exited
			return fmt.Errorf("sshd did not listen on port %d in 10s", d.Port)
		}
	}
}

// Restart starts the sshd again on its port after Kill.
func (d *Sshd) Restart() {
	if err := d.start(); err != nil {
		d.n.must(fmt.Errorf("restarting sshd: %v\n%s", err, d.Log()))
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
	// Wait until the killed ones are gone or zombies (their sockets closed), at most 5 s.
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
	n.must(n.add(entry{name: name, port: d.Port, extra: "  HostKeyAlias " + d.Name + "\n  IdentityFile " + n.otherKey + "\n"}))
}

// AddClosed names a host on a port where nothing listens.
func (n *Net) AddClosed(name string) {
	port, err := freePort()
	n.must(err)
	n.must(n.add(entry{name: name, port: port}))
}

// AddSilent names a host on a port that takes connections and never answers, as a host whose
// sshd hangs does: ssh gives up at its connect timeout (banner exchange). The listener closes
// with the Net.
func (n *Net) AddSilent(name string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	n.must(err)
	go func() {
		var held []net.Conn // open, unanswered, until the listener closes
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	n.mu.Lock()
	n.closers = append(n.closers, l.Close)
	n.mu.Unlock()
	n.must(n.add(entry{name: name, port: l.Addr().(*net.TCPAddr).Port}))
}

func (n *Net) add(e entry) error {
	n.mu.Lock()
	n.hosts = append(n.hosts, e)
	n.mu.Unlock()
	return n.writeConfig()
}

func (n *Net) appendKnownHost(line string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	f, err := os.OpenFile(n.knownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	return errors.Join(err, f.Close())
}

// writeConfig writes the client config: each host's own entry first (ssh takes the first value
// it reads for each option), then what every host shares.
func (n *Net) writeConfig() error {
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
	return os.WriteFile(n.Config, b.Bytes(), 0o600)
}
