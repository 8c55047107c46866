// `kubectl attach` (and `kubectl run -i`, which attaches): a session joined to the container's running process
// through its streams (kubelet/container-io.ts), over the same websocket channels or SPDY streams as exec. As
// the kubelet serves it (pkg/kubelet/cri/streaming/remotecommand/attach.go ServeAttach), the session ends when
// the process does, with a Success Status whatever its exit code (kubectl run reads that from the pod's status
// afterwards); stdin goes to the container only when it has one (`stdin: true`), stderr is a stream of its own
// only without a terminal. The client leaving detaches it; the process runs on.
import type { ContainerIo } from '../container-io.js';
import { type CommandIO, type RunningCommand, SUCCESS } from './command.js';
import type { StreamOptions } from './target.js';

export function startAttach(container: ContainerIo, options: StreamOptions, io: CommandIO): RunningCommand {
  const attachment = container.attach(options.stdin, {
    output: (stream, text) => {
      if (stream === 'stdout' && options.stdout) io.stdout(Buffer.from(text));
      else if (stream === 'stderr' && options.stderr) io.stderr(Buffer.from(text));
    },
    ended: () => io.finish(SUCCESS),
  });
  return {
    stdin: (data) => {
      attachment.stdin(data);
      return true;
    },
    endStdin: () => attachment.endStdin(),
    onDrain: () => undefined,
    abort: () => attachment.detach(),
  };
}
