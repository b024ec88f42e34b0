import { execFileSync, spawn } from "node:child_process";
import { chownSync, cpSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { basename, join, posix } from "node:path";

/** One instruction, its continuation lines joined. */
export type Instruction = { keyword: string; args: string };

/** What the final stage declares: the image a `docker run` would start. */
export type EmulatedImage = {
  /** Every stage's base image, in order. */
  bases: string[];
  /** The final stage's file system (image paths live under it). */
  root: string;
  env: Record<string, string>;
  workdir: string;
  user: string;
  volumes: string[];
  exposed: string[];
  healthcheck: string[];
  stopSignal: string;
  cmd: string[];
};

/** A RUN as the Dockerfile writes it, in the stage it belongs to. */
export type RunStep = {
  /** The stage's name (FROM … AS name), or its number from 1. */
  stage: string;
  /** The shell form's command, or the exec form's words joined by spaces. */
  command: string;
  /** The stage's WORKDIR, on this machine. */
  dir: string;
};

/** The uid and gid of the `node` user in the official node images. */
const KNOWN_USERS: Readonly<Record<string, number>> = { node: 1000, root: 0 };

export function parseDockerfile(text: string): Instruction[] {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) pending += `${line.slice(0, -1)} `;
    else {
      logical.push(pending + line);
      pending = "";
    }
  }
  return logical.map((line) => {
    const space = line.search(/\s/);
    return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
  });
}

function jsonArray(args: string, what: string): string[] {
  const value: unknown = JSON.parse(args);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new Error(`${what} must be a JSON array of strings (exec form): ${args}`);
  return value;
}

/** uid and gid for a USER line or a --chown flag (a name the node images define, or numbers). */
export function userIds(spec: string): { uid: number; gid: number } {
  const [user = "", group = user] = spec.split(":");
  const id = (name: string) => KNOWN_USERS[name] ?? (/^\d+$/.test(name) ? Number(name) : undefined);
  const uid = id(user);
  const gid = id(group);
  if (uid === undefined || gid === undefined) throw new Error(`unknown user in --chown=${spec}`);
  return { uid, gid };
}

function chownTree(path: string, ids: { uid: number; gid: number }): void {
  chownSync(path, ids.uid, ids.gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), ids);
}

/**
 * Copies a file or a folder's contents. A folder is hard-linked file by file when it may be (its
 * files are then not chowned, and stages are throw-away folders of one file system): the server
 * image's node_modules is 200 MB, which a copy took seconds to write and more to remove.
 */
function copyTree(path: string, to: string, link: boolean): void {
  if (link) {
    try {
      execFileSync("cp", ["-R", "--link", "--no-dereference", `${path}/.`, to], { stdio: "ignore" });
      return;
    } catch {
      // Another file system: copied below.
    }
  }
  cpSync(path, to, { recursive: true, verbatimSymlinks: true });
}

function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const [command = "", ...args] = argv;
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`RUN ${argv.join(" ")} exited with ${code}`)),
    );
  });
}

/**
 * Follows a Dockerfile's instructions without a Docker engine: each stage's file system is a folder
 * under `workDir`, COPY copies from the build context or an earlier stage with Docker's rules (a
 * folder's contents, not the folder; a new destination folder owned as --chown says), and RUN runs
 * on this machine in the stage's WORKDIR with the stage's ENV over `hostEnv` (which supplies PATH,
 * hence this machine's node and npm in place of the base image's). Anything else it does not know
 * throws, so the Dockerfile cannot drift away from what the test checks. `substitute` may stand
 * in for a RUN (the command to run instead); an apt-get it does not stand in for throws, since it
 * would change this machine.
 */
export async function emulateBuild(options: {
  dockerfile: string;
  context: string;
  workDir: string;
  hostEnv: NodeJS.ProcessEnv;
  asRoot: boolean;
  substitute?: (step: RunStep) => string[] | undefined;
}): Promise<EmulatedImage> {
  const stageRoots = new Map<string, string>();
  let image: EmulatedImage | undefined;
  const current = (): EmulatedImage => {
    if (!image) throw new Error("an instruction before FROM");
    return image;
  };
  const inImage = (path: string) => join(current().root, posix.resolve(current().workdir, path));
  const bases: string[] = [];
  let stageName = "";

  for (const { keyword, args } of parseDockerfile(options.dockerfile)) {
    switch (keyword) {
      case "FROM": {
        const [base = "", as, name] = args.split(/\s+/);
        bases.push(base);
        const root = join(options.workDir, `stage-${bases.length}`);
        mkdirSync(root, { recursive: true });
        if (as?.toUpperCase() === "AS" && name) stageRoots.set(name, root);
        stageName = as?.toUpperCase() === "AS" && name ? name : String(bases.length);
        image = {
          bases,
          root,
          env: {},
          workdir: "/",
          user: "root",
          volumes: [],
          exposed: [],
          healthcheck: [],
          stopSignal: "SIGTERM",
          cmd: [],
        };
        break;
      }
      case "WORKDIR":
        current().workdir = posix.resolve(current().workdir, args);
        mkdirSync(inImage("."), { recursive: true });
        break;
      case "ENV":
        for (const pair of args.split(/\s+/)) {
          const eq = pair.indexOf("=");
          if (eq <= 0 || /["']/.test(pair)) throw new Error(`ENV: only unquoted KEY=value pairs: ${pair}`);
          current().env[pair.slice(0, eq)] = pair.slice(eq + 1);
        }
        break;
      case "COPY": {
        const words = args.split(/\s+/);
        let from = options.context;
        let chown: { uid: number; gid: number } | undefined;
        while (words[0]?.startsWith("--")) {
          const flag = words.shift() ?? "";
          const [name, value = ""] = flag.slice(2).split("=");
          if (name === "from") {
            const stage = stageRoots.get(value);
            if (!stage) throw new Error(`COPY --from=${value}: no such stage`);
            from = stage;
          } else if (name === "chown") {
            // Only root can give files away; otherwise they stay the current user's, who runs the server.
            if (options.asRoot) chown = userIds(value);
          } else throw new Error(`COPY: unsupported flag ${flag}`);
        }
        const dest = words.pop() ?? "";
        if (words.length === 0) throw new Error(`COPY needs a source: ${args}`);
        const target = inImage(dest);
        const intoFolder = dest.endsWith("/") || words.length > 1;
        const created = !existsSync(target);
        for (const source of words) {
          if (/[*?[]/.test(source)) throw new Error(`COPY: wildcards are not emulated: ${source}`);
          const path = join(from, source);
          if (!existsSync(path)) throw new Error(`COPY: ${source} is not in ${from}`);
          const isFolder = statSync(path).isDirectory();
          const to = isFolder || !intoFolder ? target : join(target, basename(source));
          // A folder's contents are copied, not the folder itself (its mode and owner are not kept).
          if (isFolder) mkdirSync(to, { recursive: true });
          copyTree(path, to, isFolder && !chown);
          if (!chown) continue;
          const copied = isFolder ? readdirSync(path).map((entry) => join(to, entry)) : [to];
          for (const entry of copied) chownTree(entry, chown);
        }
        // --chown also owns a destination folder the COPY created, not one that was there.
        if (chown && created) chownSync(target, chown.uid, chown.gid);
        break;
      }
      case "RUN": {
        const written = args.startsWith("[") ? jsonArray(args, "RUN") : ["/bin/sh", "-c", args];
        const command = args.startsWith("[") ? written.join(" ") : args;
        const step = { stage: stageName, command, dir: inImage(".") };
        const argv = options.substitute?.(step) ?? written;
        if (argv === written && /\bapt-get\b/.test(command))
          throw new Error(`RUN ${command}: apt-get would change this machine; the test must stand in for it`);
        await run(argv, step.dir, { ...options.hostEnv, ...current().env });
        break;
      }
      case "USER":
        current().user = args;
        break;
      case "VOLUME":
        current().volumes.push(...(args.startsWith("[") ? jsonArray(args, "VOLUME") : args.split(/\s+/)));
        break;
      case "EXPOSE":
        current().exposed.push(...args.split(/\s+/));
        break;
      case "HEALTHCHECK": {
        const at = args.indexOf("CMD ");
        if (at < 0) throw new Error(`HEALTHCHECK without CMD: ${args}`);
        current().healthcheck = jsonArray(args.slice(at + 4).trim(), "HEALTHCHECK CMD");
        break;
      }
      case "STOPSIGNAL":
        current().stopSignal = args;
        break;
      case "CMD":
        current().cmd = jsonArray(args, "CMD");
        break;
      default:
        throw new Error(
          `Dockerfile instruction ${keyword} is not emulated: teach scripts/container/testing/dockerfile.ts`,
        );
    }
  }
  return current();
}
