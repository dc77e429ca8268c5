/**
 * Node system errors (EADDRINUSE, ENOTFOUND, spawn ENOENT…) met by a command are problems of the
 * environment or of what the user asked for, not bugs: they become WardenErrors naming the option that
 * led to them, so the user reads "--port 8787: already in use", never a stack trace.
 */
import { resolve, sep } from "node:path";
import { WardenError } from "../core/errors.js";

interface SystemError {
  code: string;
  syscall: string;
  path?: string;
  address?: string;
  port?: number;
  hostname?: string;
  spawnargs?: string[];
  message: string;
}

function isSystemError(error: unknown): error is SystemError {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  return typeof code === "string" && /^E[A-Z0-9_]+$/.test(code) && typeof syscall === "string";
}

function invalid(options: { message: string; field: string; cause: unknown }): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: options.message,
    details: { fields: [options.field] },
    cause: options.cause,
  });
}

/** A listen error names --port when the port is the problem, --host when the address is. */
function listenError(error: SystemError): WardenError {
  const address = error.address ?? "the address";
  const where = error.port === undefined ? address : `${address}:${error.port}`;
  if (error.code === "EADDRINUSE") {
    const message = `--port ${error.port ?? ""}: ${where} is already in use (pick another --port, or 0 for any free port)`;
    return invalid({ message, field: "--port", cause: error });
  }
  if (error.code === "EACCES") {
    const message = `--port ${error.port ?? ""}: listening on ${where} needs privileges (pick a port above 1023)`;
    return invalid({ message, field: "--port", cause: error });
  }
  const reason =
    error.code === "EADDRNOTAVAIL"
      ? "is not an address of this machine"
      : `cannot be listened on (${error.code})`;
  return invalid({ message: `--host ${address}: ${reason}`, field: "--host", cause: error });
}

/** The WardenError a Node system error stands for, or undefined when it is not one. */
export function wardenErrorFromSystem(options: { error: unknown }): WardenError | undefined {
  const { error } = options;
  if (!isSystemError(error)) return undefined;
  const { code, syscall } = error;
  if (syscall === "listen" || syscall === "bind") return listenError(error);
  if (syscall === "getaddrinfo") {
    const transient =
      code === "EAI_AGAIN" ? " (name resolution failed for now; try again or give an IP address)" : "";
    return invalid({
      message: `--host: cannot resolve ${error.hostname ?? "the host"} (${code})${transient}`,
      field: "--host",
      cause: error,
    });
  }
  if (syscall.startsWith("spawn")) {
    const command = error.path ?? syscall.slice("spawn ".length);
    const reason =
      code === "ENOENT"
        ? "not found (give the path of an installed program, or a command on PATH)"
        : code === "EACCES"
          ? "is not executable (permission denied)"
          : `cannot be started (${code})`;
    return invalid({ message: `command ${command}: ${reason}`, field: "<command>", cause: error });
  }
  const where = error.path ? ` ${error.path}` : "";
  return invalid({ message: `${syscall}${where}: ${code}`, field: syscall, cause: error });
}

const PATH_REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is a file, not a directory",
  EEXIST: "a file is in the way",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
};

/**
 * Runs `run`, turning a system error on a path given by one of `paths` (option -> value), or on a folder
 * above it, into a WardenError naming that option: `--out x/y: cannot mkdir x (a file is in the way)`.
 */
export async function namingPathOptions<T>(options: {
  paths: Record<string, string | undefined>;
  run: () => Promise<T>;
}): Promise<T> {
  try {
    return await options.run();
  } catch (error) {
    if (!isSystemError(error) || error.path === undefined) throw error;
    const failed = resolve(error.path);
    for (const [option, value] of Object.entries(options.paths)) {
      if (value === undefined) continue;
      const given = resolve(value);
      const related =
        given === failed || given.startsWith(`${failed}${sep}`) || failed.startsWith(`${given}${sep}`);
      if (!related) continue;
      const reason = PATH_REASONS[error.code] ?? error.code;
      throw invalid({
        message: `${option} ${value}: cannot ${error.syscall} ${error.path} (${reason})`,
        field: option,
        cause: error,
      });
    }
    throw error;
  }
}
