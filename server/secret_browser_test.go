package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// chromium finds a Chromium to drive, or skips the test.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium installed (apt-get install chromium): the secret page's browser test is skipped")
	return ""
}

// A real browser opens the secret page, which a stand-in for sudo's prompt asked for, takes
// its picture (TMUX_MCP_UPDATE_SHOT=1 writes docs/secret-page.png for the README), types the
// secret and submits: the program gets it, the result has only its length.
func TestSecretPageBrowser(t *testing.T) {
	exe := chromium(t)
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("build")
	tmx.WaitPrompt(pane)
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	sudo, _ := filepath.Abs("testdata/fakesudo")
	dir := t.TempDir()
	link := filepath.Join(dir, "sudo")
	if err := os.Symlink(sudo, link); err != nil {
		t.Fatal(err)
	}
	tmx.Tmux("send-keys", "-t", pane, "clear; "+link+" -S apt-get upgrade", "Enter")
	waitHidden(t, tmx, pane)

	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(760, 620),
		chromedp.UserDataDir(filepath.Join(dir, "profile")))...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 120*time.Second)
	defer cancel()

	var shot []byte
	var after string
	var browseErr error
	pc := &pageClient{urlMode: true, open: func(u string) {
		if browseErr = chromedp.Do(bctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.ID("secret"))); browseErr != nil {
			return
		}
		t.Log("page shown")
		if shot, browseErr = chromedp.Run(bctx, chromedp.FullScreenshot(100)); browseErr != nil {
			return
		}
		t.Log("picture taken")
		if browseErr = chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("secret"), testSecret), chromedp.Submit(chromedp.ID("secret")),
			chromedp.WaitVisible(chromedp.Search(`//h1[text()="Typed"]`))); browseErr != nil {
			return
		}
		after, browseErr = chromedp.Run(bctx, chromedp.Text(chromedp.CSS("body")))
	}}
	cs := pc.connect(t, s, "stream", "2025-11-25")
	res, text := callJSON(t, cs, "type_secret", map[string]any{"pane_id": pane, "message": "sudo asks for your password to upgrade the packages."})
	if browseErr != nil {
		t.Fatalf("the browser: %v", browseErr)
	}
	if res.IsError || !strings.Contains(text, fmt.Sprintf(`"bytes":%d`, len(testSecret))) {
		t.Fatalf("%s", text)
	}
	if !strings.Contains(after, "was typed into tmux pane "+pane) || strings.Contains(after, testSecret) {
		t.Errorf("the page after the submit: %s", after)
	}
	waitScreen(t, tmx, pane, fmt.Sprintf("sudo-len=%d", len(testSecret)))
	if len(shot) == 0 {
		t.Error("no picture of the page")
	}
	if os.Getenv("TMUX_MCP_UPDATE_SHOT") == "1" {
		if err := os.WriteFile("../docs/secret-page.png", shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
