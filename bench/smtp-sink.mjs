#!/usr/bin/env node
// A loopback SMTP server that accepts and discards every message: the mail provider's stand-in
// for the documents benchmarks, in its own process so its CPU is not the bench's. STARTTLS is
// off (a provider's TLS is its CPU, not paygate's; a loopback relay is allowed plain SMTP).
// Prints `listening on port N`; on SIGTERM prints `accepted N` and exits.
import { SMTPServer } from 'smtp-server';

let accepted = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  size: 16 * 1024 * 1024,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      accepted++;
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => console.log(`listening on port ${server.server.address().port}`));
process.on('SIGTERM', () => {
  console.log(`accepted ${accepted}`);
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
