import { LocalPage } from "./local-page.ts";

const root = document.getElementById("app");
if (root) new LocalPage(root).start();
