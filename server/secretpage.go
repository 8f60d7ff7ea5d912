package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// A secret page is a one-time web page on 127.0.0.1 where the person types a secret (a
// password a program in a pane asks for) that the model must never see. It listens on a port
// of its own, for this one request, at an unguessable path; the first accepted submit types
// the secret into the pane (typeFn) and closes the listener, and so does its expiry. The
// secret lives in this process only between the submit and tmux's send-keys.

// secretTTL is how long a page waits for the person. A variable for tests.
var secretTTL = 5 * time.Minute

// maxSecret bounds what the page takes, in bytes.
const maxSecret = 4096

// errPageExpired and errPageClosed end a page without a secret typed.
var (
	errPageExpired = errors.New("the page expired before a secret was typed")
	errPageClosed  = errors.New("the page was closed")
)

// secretPage is one page for one secret.
type secretPage struct {
	id      string // the elicitation id, and the key of pages
	url     string
	token   string // the path's secret part
	csrf    string // the form's token: a post without it is refused
	addr    string // host:port it listens on
	pane    string
	program string // what asked (tmux's pane_current_command)
	shows   string // the pane's last line (the prompt), to recognise it
	message string // the agent's words for the person
	// typeFn types the secret into the pane and returns how many bytes it typed, or why it
	// did not.
	typeFn func(secret string) (int, error)

	srv  *http.Server
	done chan struct{} // closed when the page ends (typed, refused, expired, closed)

	mu    sync.Mutex
	used  bool
	bytes int
	err   error // why it ended without a secret typed
	timer *time.Timer
}

// newToken is 32 random bytes, URL-safe.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// openSecretPage starts a page's listener on 127.0.0.1 at a random port.
func openSecretPage(pane, program, shows, message string, typeFn func(string) (int, error)) (*secretPage, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening the secret page's port on 127.0.0.1: %w", err)
	}
	pg := &secretPage{id: newToken()[:22], token: newToken(), csrf: newToken(), addr: ln.Addr().String(),
		pane: pane, program: program, shows: shows, message: message, typeFn: typeFn, done: make(chan struct{})}
	pg.url = "http://" + pg.addr + "/secret/" + pg.token
	mux := http.NewServeMux()
	mux.HandleFunc("/secret/"+pg.token, pg.serve)
	pg.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		MaxHeaderBytes: 16 << 10}
	pg.mu.Lock() // the timer's end waits for its assignment
	pg.timer = time.AfterFunc(secretTTL, func() { pg.end(errPageExpired) })
	pg.mu.Unlock()
	go pg.srv.Serve(ln)
	return pg, nil
}

// end ends the page once: it stops taking posts and closes its listener (a request being
// answered still gets its answer).
func (pg *secretPage) end(why error) {
	pg.mu.Lock()
	if pg.used {
		pg.mu.Unlock()
		return
	}
	pg.used, pg.err = true, why
	pg.mu.Unlock()
	pg.finish()
}

// finish closes the listener and tells the waiters.
func (pg *secretPage) finish() {
	pg.mu.Lock()
	t := pg.timer
	pg.mu.Unlock()
	t.Stop()
	close(pg.done)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pg.srv.Shutdown(ctx)
	}()
}

// result is how the page ended: the bytes typed, or why none were.
func (pg *secretPage) result() (int, error) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.bytes, pg.err
}

// serve answers the page's one path: the form (GET), the secret (POST).
func (pg *secretPage) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer a browser posts the form with Origin
	// "null", and the origin check could not tell it from a sandboxed page of another site.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	// The Host header must be the address itself: a page of another site whose name resolves
	// to 127.0.0.1 (DNS rebinding) is not this page's origin.
	if r.Host != pg.addr {
		pg.page(w, http.StatusForbidden, pageView{Title: "Refused", Note: "This page answers only at " + pg.addr + "."})
		return
	}
	pg.mu.Lock()
	used := pg.used
	pg.mu.Unlock()
	if used {
		pg.page(w, http.StatusGone, pageView{Title: "This page was used", Note: "It takes one secret, once, and has expired or was used already. Nothing was typed from this request."})
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		pg.page(w, http.StatusOK, pg.form(""))
	case http.MethodPost:
		pg.post(w, r)
	default:
		h.Set("Allow", "GET, POST")
		pg.page(w, http.StatusMethodNotAllowed, pageView{Title: "Refused", Note: "Use the form."})
	}
}

// crossSite reports whether a post comes from another site than the page: the browser's
// Sec-Fetch-Site or Origin say so. (A post without both, from a program rather than a
// browser, still needs the form's token.)
func (pg *secretPage) crossSite(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return true
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+pg.addr {
		return true
	}
	return false
}

// post takes the secret. Only a valid post ends the page: a mistake shows the form again.
func (pg *secretPage) post(w http.ResponseWriter, r *http.Request) {
	if pg.crossSite(r) {
		pg.page(w, http.StatusForbidden, pageView{Title: "Refused", Note: "A post from another site is refused. Nothing was typed."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4*maxSecret+1024)
	if err := r.ParseForm(); err != nil {
		pg.page(w, http.StatusBadRequest, pg.form("The form could not be read; type the secret again."))
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(pg.csrf)) != 1 {
		pg.page(w, http.StatusForbidden, pageView{Title: "Refused", Note: "The form's token is missing or wrong (a post from elsewhere). Nothing was typed."})
		return
	}
	secret := r.PostForm.Get("secret")
	if msg := badSecret(secret); msg != "" {
		pg.page(w, http.StatusBadRequest, pg.form(msg))
		return
	}
	pg.mu.Lock()
	if pg.used {
		pg.mu.Unlock()
		pg.page(w, http.StatusGone, pageView{Title: "This page was used", Note: "It takes one secret, once. Nothing was typed from this request."})
		return
	}
	pg.used = true
	pg.mu.Unlock()
	n, err := pg.typeFn(secret)
	secret = ""
	pg.mu.Lock()
	pg.bytes, pg.err = n, err
	pg.mu.Unlock()
	if err != nil {
		pg.page(w, http.StatusConflict, pageView{Title: "Not typed", Note: "Nothing was typed: " + err.Error()})
	} else {
		pg.page(w, http.StatusOK, pageView{Title: "Typed", Note: fmt.Sprintf("The secret (%d bytes) was typed into tmux pane %s. You can close this page.", n, pg.pane)})
	}
	pg.finish()
}

// badSecret says what is wrong with a secret the page cannot type as one line of input.
func badSecret(s string) string {
	switch {
	case s == "":
		return "The secret is empty; type it, or close the page to type nothing."
	case len(s) > maxSecret:
		return fmt.Sprintf("The secret is longer than %d bytes.", maxSecret)
	case !utf8.ValidString(s):
		return "The secret is not valid text (UTF-8)."
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "The secret holds a line break or another control character, which would be typed as a key; type it as one line."
		}
	}
	return ""
}

// pageView is what the template shows.
type pageView struct {
	Title, Note, Error                  string
	Pane, Program, Shows, Message, CSRF string
	Form                                bool
}

func (pg *secretPage) form(errMsg string) pageView {
	return pageView{Title: "Type a secret into tmux pane " + pg.pane, Form: true, Error: errMsg,
		Pane: pg.pane, Program: pg.program, Shows: pg.shows, Message: pg.message, CSRF: pg.csrf}
}

func (pg *secretPage) page(w http.ResponseWriter, status int, v pageView) {
	w.WriteHeader(status)
	pageTemplate.Execute(w, v)
}

// pageTemplate is the page: plain HTML, no script, escaped by html/template (the program's
// name, the pane's line and the agent's message are not to be trusted).
var pageTemplate = template.Must(template.New("secret").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}}</title>
<style>
body{font:16px/1.45 system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.3em}.box{background:#f4f4f4;border-radius:6px;padding:.6em .9em;margin:.8em 0}
code{font-family:ui-monospace,monospace}.err{color:#a00;font-weight:600}
input[type=password]{font-size:1.1em;width:100%;box-sizing:border-box;padding:.4em;margin:.4em 0}
button{font-size:1em;padding:.45em 1.2em}.small{color:#555;font-size:.9em}
</style></head><body>
<h1>{{.Title}}</h1>
{{if .Form}}
<p>A program in tmux pane <code>{{.Pane}}</code>{{if .Program}}, <code>{{.Program}}</code>,{{end}} is waiting for hidden input, such as a password.
An AI agent asked you to type it here, so that the agent never sees it.</p>
{{if .Shows}}<div class="box">The pane shows: <code>{{.Shows}}</code></div>{{end}}
{{if .Message}}<div class="box">The agent says: {{.Message}}</div>{{end}}
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
<form method="post" autocomplete="off">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<label for="secret">Secret</label>
<input type="password" id="secret" name="secret" autocomplete="off" autofocus required>
<button type="submit">Type it into pane {{.Pane}}</button>
</form>
<p class="small">It is typed into the pane followed by Enter, once; this page then closes. The agent learns only that it was typed and how many bytes.
If you did not expect this, close the page: nothing is typed.</p>
{{else}}
<p>{{.Note}}</p>
{{end}}
</body></html>
`))
