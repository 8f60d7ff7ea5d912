package termstate

import "testing"

func TestSecretPrompt(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"Password: ", true},
		{"Password: ****", true},
		{"Enter passphrase for key '/home/u/.ssh/id_ed25519':", true},
		{"? API token [input is masked]", true},
		{"? Enter your password", true},
		{"Enter PIN for token:", true},
		{"Paste your access key (hidden):", true},
		{"Vault token?", true},
		{"read> ", false},
		{"secret-project> ", false},
		{"root@vm:~/tokens# ", false},
		{"Tokenizer: ", false},
		{"Spinning:", false},
		{"Name: ", false},
		{">>> ", false},
		{"The password was changed.", false},
	} {
		if got := SecretPrompt(tc.line); got != tc.want {
			t.Errorf("SecretPrompt(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestSecretAsked(t *testing.T) {
	raw, line := Mode{}, Mode{Canonical: true, Echo: true}
	if !raw.SecretAsked("Password: ") || line.SecretAsked("Password: ") || (Mode{Echo: true}).SecretAsked("Password: ") || raw.SecretAsked("$ ") {
		t.Error("SecretAsked: a secret is asked only in raw mode without echo, after a prompt for one")
	}
}
