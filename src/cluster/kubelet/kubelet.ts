// Kubelet and container-runtime emulation for one cluster's nodes: each node has its own root directory
// (paths.ts, node-root.ts) with its CNI conf dir, and /opt/cni/bin (AKS's reference plugins) once it runs something. kubenet and Azure CNI nodes get AKS's conflist (their network model names it) when they are
// created; `none` nodes start empty (or with what `aksemu cni install` left for the cluster). The runtime
// network is ready while the dir holds a loadable network config (cni.ts), and like containerd's fsnotify
// watcher we notice changes within a moment: fs.watch per node dir where the OS allows it, and a periodic
// rescan for everything else.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, type Stats, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { CNI_EXTENSIONS, loadDefaultNetwork, type LoadedNetwork, parseNetworkConfig } from '../../cni/confdir.js';
import { networkModelFor } from '../../aks/network-models/index.js';
import type { KubeletState } from './node-status.js';
import { linkApiSocket, seedNodeRoot } from '../nodefs/node-root.js';
import { clusterCniDir, confDirIn, nodeImageCniBin, nodeRootIn, nodesDir } from '../nodefs/paths.js';

export interface KubeletNode {
  name: string;
  createdAt: string;
  podCidr?: string;
  /** Azure CNI with a pod subnet: the node's pods take addresses of it, through CNS. */
  podSubnetId?: string;
  /** When a network migration reimaged the node: its conf dir is written again for the new model. */
  reimagedAt?: string;
}

export interface KubeletClusterInfo {
  resourceGroup: string;
  name: string;
  networkPlugin: string;
  networkPluginMode?: string;
}

interface Tracked {
  node: KubeletNode;
  /** The node's root directory (nodeRoot). */
  root: string;
  dir: string;
  state: KubeletState;
  scan: Scan;
  watcher?: FSWatcher;
  debounce?: NodeJS.Timeout;
  /**
   * A node known before this process: the default network its first read found, until asked once (network) or the
   * dir is seen changed. A restart's IPAM plans ask it for every node just after serving (docs/performance.md §2.19).
   */
  first?: { network: HeldNetwork | undefined };
  /**
   * Watched, and the dir read again since the watch began (check) and found as the first read left it, with nothing
   * told by the watch since: the first read's network is the dir's without reading it again (network).
   */
  quiet?: boolean;
}

/**
 * A first read's default network: parsed, or, when another node's file of the same name kind held the same text
 * (a restart's 5,000 nodes hold one conflist), that file's name and text, parsed when asked (network).
 */
type HeldNetwork = LoadedNetwork | { file: string; text: string };

/** The network a HeldNetwork stands for (the text parsed loaded before, and parses the same). */
function networkOf(held: HeldNetwork | undefined): LoadedNetwork | undefined {
  return held && 'text' in held ? parseNetworkConfig(held.file, held.text) : held;
}

/**
 * Watchers per cluster at most; past this the rescan alone keeps up. inotify's watches are a budget per user
 * (fs.inotify.max_user_watches: 8,192 on older kernels, up to 1,048,576 on newer ones by their memory): a cluster
 * takes a sixteenth of it, at least 512 and at most 5,000 (AKS's nodes per cluster).
 */
const MAX_WATCHERS = (() => {
  let budget = 8192;
  try {
    budget = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim()) || budget;
  } catch {
    // not Linux, or no /proc: the older kernels' default
  }
  return Math.min(5000, Math.max(512, Math.floor(budget / 16)));
})();

/**
 * A watched node's dir is read again by the periodic rescan once in this many ticks, a slice of them each tick: its
 * watch says when it changes, and the rescan at every tick of every dir was, at 5,000 nodes, two `stat`s per node
 * a second and a third of the event loop under load (docs/performance.md §6.10).
 */
const WATCHED_EVERY = 10;

/** The first reads' networks not asked for by then (network) are dropped after this many ticks of the rescan. */
const FIRST_HELD_TICKS = 120;

/** The watches a restart's first reads leave to the turns after them (Kubelets.unwatched), placed this many a turn. */
const WATCH_SLICE = 250;

/**
 * Texts of config files found loadable or not in this turn, `.conflist` files' apart (their parse differs): a
 * restart's first reads find one conflist in thousands of dirs, parsed once (docs/performance.md §2.25). At most
 * TEXTS_HELD of each, dropped at the end of the turn.
 */
const loadable = { conflist: new Map<string, boolean>(), other: new Map<string, boolean>() };
const TEXTS_HELD = 256;
let loadableHeld = false;

/**
 * Whether a config file's text loads (parseNetworkConfig): its network when parsed now, true when the same text of
 * the same kind loaded in this turn already, false when it does not load.
 */
function loadsAs(file: string, text: string): LoadedNetwork | boolean {
  const known = file.endsWith('.conflist') ? loadable.conflist : loadable.other;
  const before = known.get(text);
  if (before !== undefined) return before;
  let network: LoadedNetwork | undefined;
  try {
    network = parseNetworkConfig(file, text);
  } catch {
    network = undefined;
  }
  if (known.size < TEXTS_HELD) {
    known.set(text, network !== undefined);
    if (!loadableHeld) {
      loadableHeld = true;
      setImmediate(() => {
        loadable.conflist.clear();
        loadable.other.clear();
        loadableHeld = false;
      });
    }
  }
  return network ?? false;
}

/** The first of a dir's config files (in name order) that loads, as firstNetwork finds it, held (HeldNetwork). */
function firstHeldNetwork(dir: string, files: readonly string[]): HeldNetwork | undefined {
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, f), 'utf8');
    } catch {
      continue; // libcni skips files it cannot load; the next one may be the default.
    }
    const loads = loadsAs(f, text);
    if (loads === true) return { file: f, text };
    if (loads !== false) return loads;
  }
  return undefined;
}

/** Names and mtimes of the files the runtime would consider: changes when anything relevant changes. */
function signatureOf(files: readonly string[], paths: readonly string[]): string {
  return signatureFrom(files, (i) => statSync(paths[i]!));
}

/** signatureOf, from each file's stats (by its index in files); throws when one cannot be had. */
function signatureFrom(files: readonly string[], statOf: (i: number) => Stats): string {
  const parts: string[] = [];
  for (let i = 0; i < files.length; i++) {
    const st = statOf(i);
    parts.push(`${files[i]}:${st.mtimeMs}:${st.size}`);
  }
  return parts.join('|');
}

/**
 * A conf dir whose inode changed less than this before it was read may change again within the same tick of the
 * file system's clock: its change time is not trusted to say its names are the same (as git's "racily clean").
 */
const RACY_MS = 2000;

/** What a read of a conf dir found: its signature, the files it is made of, and the dir's change time when settled. */
interface Scan {
  signature: string;
  files: readonly string[];
  /** Their paths. */
  paths: readonly string[];
  /** The dir's ctime when it had not changed for RACY_MS before the read; NaN otherwise (read it again next time). */
  settled: number;
}

const MISSING: Scan = { signature: '<missing>', files: [], paths: [], settled: Number.NaN };
/** A conf dir made just now and given nothing (read it next time). */
const EMPTY: Scan = { signature: '', files: [], paths: [], settled: Number.NaN };

/** The dir's names the runtime would consider (config files, cni.ts), in name order. */
function configFiles(names: string[]): string[] {
  return names.sort().filter((f) => CNI_EXTENSIONS.some((ext) => f.endsWith(ext)));
}

/** The scan of a dir whose ctime was `ctime` before its config `files` were listed; throws when a file's stats cannot be had. */
function scanOf(dir: string, ctime: number, files: readonly string[], statOf: (i: number, path: string) => Stats, now: number): Scan {
  const paths = files.map((f) => join(dir, f));
  return { signature: signatureFrom(files, (i) => statOf(i, paths[i]!)), files, paths, settled: now - ctime > RACY_MS ? ctime : Number.NaN };
}

/** Reads the dir's names (in order) and their files' times and sizes. */
function scanDir(dir: string, now = Date.now()): Scan {
  try {
    const ctime = statSync(dir).ctimeMs;
    return scanOf(dir, ctime, configFiles(readdirSync(dir)), (_, path) => statSync(path), now);
  } catch {
    return MISSING;
  }
}

/**
 * The dir again, as cheaply as it can be known unchanged: while its ctime is the settled one of the last read, it
 * holds the same names (a file made, removed or renamed there changes it), so only their files are looked at
 * again (a file written in place changes its own mtime, not the dir's); else it is read again.
 */
function rescanDir(dir: string, last: Scan): Scan {
  try {
    if (statSync(dir).ctimeMs === last.settled) {
      const signature = signatureOf(last.files, last.paths);
      return signature === last.signature ? last : { ...last, signature };
    }
  } catch {
    // the dir or a file of the last read went: read it all again
  }
  return scanDir(dir);
}

/** The dir's change time, or undefined when it cannot be had (as existsSync: no such dir, or no access). */
function dirCtime(dir: string): number | undefined {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.ctimeMs;
  } catch {
    return undefined;
  }
}

/** What a node's conf dir held when its kubelet began tracking it. */
interface FirstRead {
  scan: Scan;
  /** The default network (cni.ts), as loadDefaultNetwork finds it. */
  network: HeldNetwork | undefined;
  /** The newest mtime of the dir's entries (0 when none): when its network became ready, for a node known before. */
  newest: number;
}

/**
 * scanDir, loadDefaultNetwork and the entries' newest mtime from one read of the dir (a restart tracks every node
 * at once: the dir's names once, each entry's stats once). The dir's ctime is taken before its names, as in scanDir.
 */
function firstRead(dir: string, now = Date.now(), ctimeBefore?: number): FirstRead {
  let ctime: number;
  let names: string[];
  try {
    ctime = ctimeBefore ?? statSync(dir).ctimeMs;
    names = readdirSync(dir);
  } catch {
    return { scan: MISSING, network: undefined, newest: 0 };
  }
  const stats = new Map<string, Stats>();
  let newest = 0;
  let unreadable = false;
  // In the dir's own order: an entry that cannot be stat'ed ends the search for the newest (as it always has).
  for (const f of names) {
    let st: Stats | undefined;
    try {
      st = statSync(join(dir, f));
    } catch {
      st = undefined;
    }
    if (!st) unreadable = true;
    else {
      stats.set(f, st);
      if (!unreadable) newest = Math.max(newest, st.mtimeMs);
    }
  }
  const files = configFiles(names);
  let scan: Scan;
  try {
    scan = scanOf(
      dir,
      ctime,
      files,
      (i) => {
        const st = stats.get(files[i]!);
        if (!st) throw new Error('gone');
        return st;
      },
      now,
    );
  } catch {
    scan = MISSING;
  }
  return { scan, network: firstHeldNetwork(dir, files), newest };
}

export class Kubelets {
  private readonly nodes = new Map<string, Tracked>();
  private timer: NodeJS.Timeout | undefined;
  private watchers = 0;
  /** The periodic rescan's ticks so far (tick). */
  private ticks = 0;
  /** Nodes holding their first read's network (Tracked.first). */
  private held = 0;
  /** Nodes whose root was prepared by this process (prepare). */
  private readonly prepared = new Set<string>();
  /**
   * Nodes known before this process whose watch is still to be placed: a restart's first reads leave them to the turns
   * after its sync (drainWatches), a slice a turn, each dir checked once watched. A node asked for before (network,
   * check) is watched then.
   */
  private readonly unwatched = new Set<Tracked>();
  private draining: NodeJS.Immediate | undefined;
  /** The cluster's nodes dir (paths.ts nodesDir), joined once per cluster info. */
  private nodesPath: string;
  /** The cluster's API socket that nodes link to (api-socket.ts); set by the server. */
  apiSocket: string | undefined;

  constructor(
    private readonly home: string,
    private cluster: KubeletClusterInfo,
    /** Called when a node's network readiness changes. */
    private readonly onChange: (node: string) => void,
    private readonly rescanMs = 1000,
  ) {
    this.nodesPath = nodesDir(home, cluster.resourceGroup, cluster.name);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.rescanMs);
    this.timer.unref();
  }

  setCluster(cluster: KubeletClusterInfo): void {
    if (cluster.resourceGroup !== this.cluster.resourceGroup || cluster.name !== this.cluster.name)
      this.nodesPath = nodesDir(this.home, cluster.resourceGroup, cluster.name);
    this.cluster = cluster;
  }

  confDir(node: string): string {
    return confDirIn(this.rootOf(node));
  }

  /** The node's root directory (node-root.ts): host path P of the node is join(nodeRoot, P). */
  nodeRoot(node: string): string {
    // A tracked node's is joined once: every container start asks (a restart starts one per running container).
    return this.nodes.get(node)?.root ?? this.rootOf(node);
  }

  /** paths.ts nodeRootDir, from the nodes dir joined once. */
  private rootOf(node: string): string {
    return nodeRootIn(this.nodesPath, node);
  }

  /**
   * Gives the node's root what AKS's node image has (/opt/cni/bin with the reference plugins, /var/run) and the
   * link to the cluster's API socket, once per node and process: called before the node first runs something.
   */
  prepare(node: string): void {
    if (this.prepared.has(node)) return;
    const root = this.nodeRoot(node);
    seedNodeRoot(root, nodeImageCniBin(this.home, this.cluster.resourceGroup, this.cluster.name));
    if (this.apiSocket) linkApiSocket(root, this.apiSocket);
    this.prepared.add(node);
  }

  /** Starts tracking a node (creating and seeding its conf dir the first time); returns its state. */
  ensure(node: KubeletNode): KubeletState {
    const known = this.nodes.get(node.name);
    if (known) {
      // A reimage writes the OS disk again: the node's conf dir holds the new model's conflist only.
      if (node.reimagedAt && node.reimagedAt !== known.node.reimagedAt) {
        for (const f of readdirSync(known.dir)) rmSync(join(known.dir, f), { recursive: true, force: true });
        this.seed(node, known.dir);
        this.drop(known);
      }
      known.node = node;
      return known.state;
    }
    const root = this.rootOf(node.name);
    const dir = confDirIn(root);
    // A node known before this process (a restart) has its dir: asked first, as a failed mkdir costs an exception. Its
    // change time, taken before its names are read, is the first read's.
    let made = false;
    const ctime = dirCtime(dir);
    if (ctime === undefined) {
      made = this.makeConfDir(node.name, dir);
      if (!made && !existsSync(dir)) {
        mkdirSync(dir, { recursive: true });
        made = true;
      }
    }
    const empty = made && !this.seed(node, dir);
    // A conf dir made just now and given nothing holds no network: nothing to read back (a pool add of
    // `none` nodes makes a thousand of them at once).
    const read = empty ? undefined : firstRead(dir, Date.now(), made ? undefined : ctime);
    const ready = read?.network !== undefined;
    const created = Date.parse(node.createdAt);
    const since = ready ? new Date(Math.max(created, read.newest)).toISOString() : new Date(created).toISOString();
    const tracked: Tracked = { node, root, dir, state: { networkReady: ready, since }, scan: read?.scan ?? EMPTY };
    this.nodes.set(node.name, tracked);
    // Kept only where the scan can say the dir is unchanged (its change time settled).
    if (read && !made && !Number.isNaN(read.scan.settled)) {
      tracked.first = { network: read.network };
      this.held++;
      // A node known before this process: watched in a later turn, its dir checked then (a restart's thousands of
      // watches were ~0.1 s before serving: docs/performance.md §2.25).
      this.unwatched.add(tracked);
      this.draining ??= setImmediate(() => this.drainWatches());
    } else this.watch(tracked);
    return tracked.state;
  }

  /**
   * Makes a new node's conf dir level by level below the cluster's nodes dir: four calls, where a recursive
   * mkdir tries each missing level from the deepest up first (seven). False when the node's root was there
   * already (a node known before this process) or anything else was unexpected: the caller checks the usual way.
   */
  private makeConfDir(node: string, dir: string): boolean {
    const root = this.nodeRoot(node);
    try {
      try {
        mkdirSync(root);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return false;
        mkdirSync(root, { recursive: true });
      }
      mkdirSync(join(root, 'etc'));
      mkdirSync(join(root, 'etc', 'cni'));
      mkdirSync(dir);
      return true;
    } catch {
      return false;
    }
  }

  /** What a new node's conf dir starts with: AKS's conflist, or the cluster's installed CNI for `none`. Whether it wrote anything. */
  private seed(node: KubeletNode, dir: string): boolean {
    const c = networkModelFor(this.cluster.networkPlugin, this.cluster.networkPluginMode)?.nodeConflist(node);
    if (c) {
      writeFileSync(join(dir, c.file), c.text);
      return true;
    }
    const installed = clusterCniDir(this.home, this.cluster.resourceGroup, this.cluster.name);
    if (!existsSync(installed)) return false;
    const files = readdirSync(installed);
    for (const f of files) copyFileSync(join(installed, f), join(dir, f));
    return files.length > 0;
  }

  /** A slice of the watches left to place (unwatched), the rest in the next turns. */
  private drainWatches(): void {
    this.draining = undefined;
    let n = 0;
    for (const tracked of this.unwatched) {
      if (n++ >= WATCH_SLICE) break;
      this.check(tracked);
    }
    if (this.unwatched.size > 0) this.draining = setImmediate(() => this.drainWatches());
  }

  /**
   * A node left unwatched by its first read (unwatched) watched now, before its dir is read again: a change since
   * that read is found by the read, one after it told by the watch.
   */
  private watchLeft(tracked: Tracked): boolean {
    if (!this.unwatched.delete(tracked)) return false;
    this.watch(tracked);
    return true;
  }

  private watch(tracked: Tracked): void {
    if (this.watchers >= MAX_WATCHERS) return;
    try {
      tracked.watcher = watch(tracked.dir, { persistent: false }, () => {
        tracked.quiet = false;
        clearTimeout(tracked.debounce);
        tracked.debounce = setTimeout(() => this.check(tracked), 50);
        tracked.debounce.unref();
      });
      tracked.watcher.on('error', () => {
        tracked.quiet = false;
        tracked.watcher?.close();
        tracked.watcher = undefined;
        this.watchers--;
      });
      this.watchers++;
    } catch {
      // ENOSPC and friends: the rescan covers this node.
    }
  }

  state(node: string): KubeletState | undefined {
    return this.nodes.get(node)?.state;
  }

  /**
   * The node's default network now, as loadDefaultNetwork finds it: for a node known before this process, the first
   * read's, once, while the rescan's test (the dir's settled change time, its config files' times and sizes: two
   * `stat`s for one file) finds the dir as that read left it; otherwise the dir is read.
   */
  network(node: string): LoadedNetwork | undefined {
    const tracked = this.nodes.get(node);
    // Not watched yet: watched now, and its dir read again (check).
    if (tracked && this.unwatched.has(tracked)) this.check(tracked);
    const first = tracked?.first;
    if (tracked && first) {
      this.drop(tracked);
      const quiet = tracked.quiet;
      tracked.quiet = false;
      if (quiet || rescanDir(tracked.dir, tracked.scan) === tracked.scan) return networkOf(first.network);
    }
    return loadDefaultNetwork(this.confDir(node));
  }

  private drop(tracked: Tracked): void {
    if (!tracked.first) return;
    tracked.first = undefined;
    this.held--;
  }

  private check(tracked: Tracked): void {
    if (!this.nodes.has(tracked.node.name)) return;
    const placed = this.watchLeft(tracked);
    const before = tracked.scan.signature;
    const last = tracked.scan;
    tracked.scan = rescanDir(tracked.dir, tracked.scan);
    if (tracked.scan !== last) {
      this.drop(tracked);
      tracked.quiet = false;
    } else if (placed && tracked.watcher) tracked.quiet = true;
    // A watch outlives nothing of its dir: a dir gone is read at every tick until it is back, then watched anew.
    if (tracked.scan === MISSING) this.unwatch(tracked);
    else if (!tracked.watcher) this.watch(tracked);
    if (tracked.scan.signature === before) return;
    const ready = loadDefaultNetwork(tracked.dir) !== undefined;
    if (ready === tracked.state.networkReady) return;
    tracked.state = { networkReady: ready, since: new Date().toISOString() };
    this.onChange(tracked.node.name);
  }

  /** Every node's dir read again now (what a tick does for the nodes without a watch). */
  rescan(): void {
    for (const tracked of this.nodes.values()) this.check(tracked);
  }

  /** The periodic rescan: the nodes without a watch, and a slice of those with one (WATCHED_EVERY). */
  private tick(): void {
    const turn = this.ticks++ % WATCHED_EVERY;
    if (this.held > 0 && this.ticks > FIRST_HELD_TICKS) for (const tracked of this.nodes.values()) this.drop(tracked);
    let i = 0;
    // The nodes left unwatched by a restart's first reads are the drain's while it is under way (drainWatches).
    for (const tracked of this.nodes.values())
      if (tracked.watcher ? i++ % WATCHED_EVERY === turn : !(this.draining && this.unwatched.has(tracked))) this.check(tracked);
  }

  /** Stops tracking a node; with removeFiles its directory goes too (the VM is gone). */
  forget(node: string, removeFiles: boolean): void {
    const tracked = this.nodes.get(node);
    if (tracked) {
      this.unwatched.delete(tracked);
      this.unwatch(tracked);
      this.drop(tracked);
    }
    this.nodes.delete(node);
    this.prepared.delete(node);
    if (removeFiles) rmSync(this.rootOf(node), { recursive: true, force: true });
  }

  names(): string[] {
    return [...this.nodes.keys()];
  }

  private unwatch(tracked: Tracked): void {
    tracked.quiet = false;
    clearTimeout(tracked.debounce);
    if (tracked.watcher) {
      tracked.watcher.close();
      tracked.watcher = undefined;
      this.watchers--;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.draining) clearImmediate(this.draining);
    this.draining = undefined;
    this.unwatched.clear();
    for (const t of this.nodes.values()) this.unwatch(t);
  }
}
