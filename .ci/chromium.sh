# CI (sourced by .ci/run): Chromium for the secret page's browser test
# (server/secret_browser_test.go, driven with chromedp), which skips with a message without it.
if ! command -v chromium >/dev/null 2>&1; then
	echo "installing: chromium"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || echo "chromium could not be installed: the browser test will skip"
fi
