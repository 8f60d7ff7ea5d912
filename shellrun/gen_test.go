package shellrun

import ("os"; "testing")

func TestGenTmp(t *testing.T) {
	dir := os.Getenv("GEN_DIR")
	if dir == "" { t.Skip() }
	for _, f := range []Family{POSIX, Fish} {
		s, _, err := Script(f, "tmx0123456789ab", os.Getenv("GEN_CMD"), dir+"/"+f.String())
		if err != nil { t.Fatal(err) }
		os.WriteFile(dir+"/"+f.String()+".src", []byte(s), 0o600)
		l, _ := Inline(f, "tmx0123456789ab", os.Getenv("GEN_CMD"))
		os.WriteFile(dir+"/"+f.String()+".inline", []byte(l), 0o600)
	}
}
