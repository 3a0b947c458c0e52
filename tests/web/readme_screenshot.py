"""The README's picture of the search page, made from the demo's sample history:

    python -m tests.web.readme_screenshot docs/search-page.png

The demo history is written and indexed as `chat-recall demo --serve` does, served on a
free loopback port in this process, and photographed in headless Chromium (the system's,
as the browser test uses it) with the demo's own query."""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path

import chat_recall
from chat_recall.adapters.cli.demo import write_sample
from chat_recall.adapters.sqlite_host.admin import registered_apps
from chat_recall.adapters.web.app import Site
from chat_recall.adapters.web.server import PageServer
from tests.web.browser import chromium

QUERY = "sessions JWT revocation"
VIEWPORT = {"width": 900, "height": 660}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the PNG")
    arguments = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as directory,
        chat_recall.sqlite(Path(directory) / "demo.db", create_host_schema=True) as recall,
    ):
        write_sample(recall)
        recall.indexer.run_until_idle()
        server = PageServer.bind(Site(recall, lambda: registered_apps(recall)), port=0)
        serving = threading.Thread(target=server.run, name="page")
        serving.start()
        try:
            with chromium() as browser:
                page = browser.new_page(viewport=VIEWPORT, color_scheme="light")
                page.goto(f"{server.url}apps/1?q={QUERY.replace(' ', '+')}")
                page.locator("[data-result]").first.wait_for()
                page.screenshot(path=str(arguments.output))
        finally:
            server.stop()
            serving.join()
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
