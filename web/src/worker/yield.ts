// Gives the event loop a turn (rendering, input, network) between rounds. A MessageChannel
// message is not throttled in background tabs the way setTimeout is (1 s minimum there), so
// several tabs keep their pace.
let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];

export function yieldToEventLoop(): Promise<void> {
  if (typeof MessageChannel === "undefined") return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
    // Node keeps a process alive while a port is referenced; the page does not care.
    (channel.port1 as { unref?: () => void }).unref?.();
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel!.port2.postMessage(null);
  });
}
