package dev.quiver.scan.read;

import com.github.luben.zstd.ZstdDecompressCtx;

/**
 * A thread of a scan pool ({@link ScanOptions#create}) that owns the native state its page decompression
 * reuses: one zstd decompression context, made on the thread's first ZSTD page and freed when the thread
 * ends (its pool shut down). A new context per page cost about a sixth of ZSTD decompression. Threads that
 * are not scan workers (another executor, a caller's thread) decompress with a context per page.
 */
final class ScanWorker extends Thread {
  private ZstdDecompressCtx zstd;

  ScanWorker(Runnable task, String name) {
    super(task, name);
  }

  /** This thread's zstd context; only ever used by this thread. */
  ZstdDecompressCtx zstd() {
    if (zstd == null) zstd = new ZstdDecompressCtx();
    return zstd;
  }

  @Override
  public void run() {
    try {
      super.run();
    } finally {
      if (zstd != null) {
        zstd.close();
        zstd = null;
      }
    }
  }

  /** True while this thread holds a zstd context (for tests). */
  boolean holdsZstdContext() {
    return zstd != null;
  }
}
