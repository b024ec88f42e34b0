import { ConsoleApp } from "./app/app.ts";

const root = document.getElementById("app");
if (root) void new ConsoleApp(root).start();
