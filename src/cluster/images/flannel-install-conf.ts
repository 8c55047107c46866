// flannel's /opt/bin/install-conf (flannel v0.28.9 cmd/install_conf/main.go): `install-conf SRC DEST` copies SRC
// to DEST atomically (utils.CopyFileAtomic: a `.DEST.tmp` file in DEST's directory, then a rename, with SRC's
// mode). kube-flannel.yml's install-cni init container runs it to put cni-conf.json into /etc/cni/net.d as
// 10-flannel.conflist. Its failures are the tool's: usage with exit 1, or `error installing "SRC": …`.
import { posix } from 'node:path';
import type { Program } from './program.js';

export const installConf: Program = async (ctx) => {
  const args = ctx.argv.slice(1);
  if (args.length !== 2) {
    ctx.write('stderr', `usage: ${ctx.argv[0]} <src> <dest>\n`);
    return 1;
  }
  const [src, dest] = args as [string, string];
  const fail = (why: string): number => {
    ctx.write('stderr', `error installing ${JSON.stringify(src)}: ${why}\n`);
    return 1;
  };
  const temp = `.${posix.basename(dest)}.tmp`;
  const dir = posix.dirname(dest);
  const content = ctx.files.read(src);
  // A file of the image itself: aksemu does not know its bytes, so it cannot install them.
  if (content === null) return fail(`cannot open file ${JSON.stringify(src)}: aksemu does not hold the image's files`);
  if (content === undefined) return fail(`cannot open file ${JSON.stringify(src)}: open ${src}: no such file or directory`);
  try {
    ctx.files.write(dest, content, 0o644);
  } catch (e) {
    return fail(`cannot create temp file ${JSON.stringify(temp)} in ${JSON.stringify(dir)}: ${(e as Error).message}`);
  }
  return 0;
};
