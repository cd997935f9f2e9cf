package dev.quiver.server;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flight.CallStatus;

/**
 * Self-describing statement handles: the SQL text, the user it was prepared for and any bound
 * parameter rows, signed with a key that lives as long as the server. Nothing is cached, so a handle
 * never expires while the server runs; a handle from another server run, from another user or that was
 * tampered with is NOT_FOUND. A prepared statement's handles carry its id (unique in the server run, shared
 * by the handles its parameter bindings return): once closed, they are NOT_FOUND too, for as long as the
 * server remembers the close (the last {@link #MAX_CLOSED} closes, at most {@link #CLOSED_NANOS} back).
 * Closing twice, or closing a handle the server does not know, is fine.
 */
final class StatementHandles {
  private static final byte VERSION = 3;
  private static final int MAC_BYTES = 32;
  static final int MAX_CLOSED = 100_000;
  static final long CLOSED_NANOS = 24L * 3600 * 1_000_000_000L;

  /**
   * What a handle says: who prepared which SQL, with which parameter rows (possibly none); {@code id} is
   * the prepared statement's (0 for the statement path, whose handles are never closed).
   */
  record Statement(long id, String user, String sql, List<List<Object>> rows) {
    Statement(String user, String sql, List<List<Object>> rows) {
      this(0, user, sql, rows);
    }
  }

  private volatile byte[] key = new byte[32];
  private final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();
  /** Ids of closed prepared statements, and the same in the order closed (with when) to forget the oldest. */
  private final java.util.Set<Long> closed = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.ConcurrentLinkedQueue<long[]> closedOrder = new java.util.concurrent.ConcurrentLinkedQueue<>();
  /**
   * How many closes {@link #closedOrder} holds: the queue's own {@code size()} walks it (after 10,000 JDBC queries
   * each close walked 10,000 entries).
   */
  private final java.util.concurrent.atomic.AtomicInteger closedCount = new java.util.concurrent.atomic.AtomicInteger();

  /** A fresh prepared-statement id. */
  long newId() {
    return ids.incrementAndGet();
  }

  /**
   * Marks the prepared statement of {@code handle} closed; a handle that is not genuine has nothing to close. True
   * when this closed a prepared statement of {@code user} (its handle is then unique to it: it has an id).
   */
  boolean close(byte[] handle, String user) {
    Statement s;
    try {
      s = read(handle, user);
    } catch (RuntimeException notOurs) {
      return false;
    }
    if (s.id() == 0 || !closed.add(s.id())) return false;
    long now = System.nanoTime();
    closedOrder.add(new long[] {s.id(), now});
    closedCount.incrementAndGet();
    long[] oldest;
    while ((oldest = closedOrder.peek()) != null && (closedCount.get() > MAX_CLOSED || now - oldest[1] > CLOSED_NANOS)) {
      if (closedOrder.remove(oldest)) {
        closedCount.decrementAndGet();
        closed.remove(oldest[0]);
      }
    }
    return true;
  }

  StatementHandles() {
    new SecureRandom().nextBytes(key);
  }

  /**
   * Signs with a key derived from {@code secret} (SHA-256) instead of a random one: replicas given the same secret
   * accept each other's handles and tickets (and keep accepting them across restarts). Set before serving.
   */
  void useSecret(byte[] secret) {
    key = Signing.deriveKey("", secret);
  }


  private static final byte FRAGMENT_VERSION = 2;

  /**
   * What a fragment ticket says: who ran which SQL with which parameter row (null: none) and settings, and which
   * row groups of which file versions it reads; {@code execution} tells the tickets of one FlightInfo from others.
   */
  record Fragment(long execution, String user, String sql, List<Object> row, dev.quiver.planner.QuerySettings settings,
      List<dev.quiver.planner.Fragments.FilePart> parts) {}

  /** A signed, self-describing fragment ticket (any replica with the same secret can run it). */
  byte[] encodeFragment(Fragment f) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeByte(FRAGMENT_VERSION);
        out.writeLong(f.execution());
        out.writeUTF(f.user());
        byte[] sql = f.sql().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(sql.length);
        out.write(sql);
        out.writeInt(f.row() == null ? -1 : f.row().size());
        if (f.row() != null) for (Object v : f.row()) writeValue(out, v);
        dev.quiver.planner.QuerySettings st = f.settings();
        out.writeBoolean(st.simplify());
        out.writeUTF(st.zone().getId());
        out.writeLong(st.statementTimeoutMs());
        out.writeInt(st.batchRows());
        out.writeBoolean(st.pruning());
        out.writeBoolean(st.parallelPipelines());
        out.writeInt(f.parts().size());
        for (dev.quiver.planner.Fragments.FilePart part : f.parts()) {
          dev.quiver.scan.table.DataFile file = part.file();
          out.writeUTF(file.path().toString());
          out.writeLong(file.length());
          out.writeLong(file.modificationTime());
          out.writeUTF(file.version());
          out.writeInt(part.rowGroups().size());
          for (int g : part.rowGroups()) out.writeInt(g);
        }
      }
      return seal(bytes.toByteArray());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A fragment ticket's body encrypted (AES-GCM under a key derived from the signing key) and signed: a ticket
   * names files, SQL and settings, and is handed to clients and proxies, which see none of them in clear text.
   */
  byte[] seal(byte[] body) {
    try {
      byte[] nonce = new byte[12];
      RANDOM.nextBytes(nonce);
      javax.crypto.Cipher c = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");
      c.init(javax.crypto.Cipher.ENCRYPT_MODE, ticketKey(), new javax.crypto.spec.GCMParameterSpec(128, nonce));
      byte[] sealed = c.doFinal(body);
      byte[] out = Arrays.copyOf(nonce, nonce.length + sealed.length + MAC_BYTES);
      System.arraycopy(sealed, 0, out, nonce.length, sealed.length);
      byte[] mac = mac(Arrays.copyOf(out, nonce.length + sealed.length));
      System.arraycopy(mac, 0, out, nonce.length + sealed.length, MAC_BYTES);
      return out;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The body of a {@link #seal sealed} ticket whose signature was checked; null if it does not decrypt. */
  private byte[] unseal(byte[] signed) {
    if (signed.length < 12 + 16) return null;
    try {
      javax.crypto.Cipher c = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");
      c.init(javax.crypto.Cipher.DECRYPT_MODE, ticketKey(), new javax.crypto.spec.GCMParameterSpec(128, signed, 0, 12));
      return c.doFinal(signed, 12, signed.length - 12);
    } catch (java.security.GeneralSecurityException e) {
      return null;
    }
  }

  private javax.crypto.spec.SecretKeySpec ticketKey() {
    return new javax.crypto.spec.SecretKeySpec(Signing.deriveKey("quiver fragment tickets\n", key), "AES");
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The fragment of {@code ticket}, if it is genuine (signed with this server's key) and belongs to {@code user}. */
  Fragment readFragment(byte[] ticket, String user) {
    if (ticket.length <= MAC_BYTES) throw unknown(ticket);
    byte[] body = Arrays.copyOf(ticket, ticket.length - MAC_BYTES);
    byte[] mac = Arrays.copyOfRange(ticket, ticket.length - MAC_BYTES, ticket.length);
    if (!MessageDigest.isEqual(mac, mac(body))) {
      String shown = java.util.HexFormat.of().formatHex(ticket, 0, Math.min(ticket.length, 8));
      throw CallStatus.NOT_FOUND.withDescription("unknown endpoint ticket " + shown + "…: not signed by this server's"
          + " key (replicas must share --token-secret-file); run the query again").toRuntimeException();
    }
    byte[] plain = unseal(body);
    if (plain == null) throw unknown(ticket);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plain))) {
      if (in.readByte() != FRAGMENT_VERSION) throw unknown(ticket);
      long execution = in.readLong();
      String owner = in.readUTF();
      if (!owner.equals(user)) throw unknown(ticket);
      // every count is checked against the bytes left, as if the signature could be forged: no huge allocation
      byte[] sql = new byte[counted(in.readInt(), in)];
      in.readFully(sql);
      int width = in.readInt();
      List<Object> row = null;
      if (width != -1) counted(width, in);
      if (width >= 0) {
        row = new ArrayList<>(width);
        for (int c = 0; c < width; c++) row.add(readValue(in));
      }
      dev.quiver.planner.QuerySettings st = new dev.quiver.planner.QuerySettings(in.readBoolean(),
          java.time.ZoneId.of(in.readUTF()), in.readLong(), in.readInt(), in.readBoolean(), in.readBoolean());
      int n = counted(in.readInt(), in);
      List<dev.quiver.planner.Fragments.FilePart> parts = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        dev.quiver.scan.table.DataFile file = new dev.quiver.scan.table.DataFile(new org.apache.hadoop.fs.Path(in.readUTF()),
            in.readLong(), in.readLong(), in.readUTF(), java.util.Map.of());
        int g = counted(in.readInt(), in);
        List<Integer> groups = new ArrayList<>(g);
        for (int j = 0; j < g; j++) {
          int index = in.readInt();
          if (index < 0) throw new IOException("row group " + index);
          groups.add(index);
        }
        parts.add(new dev.quiver.planner.Fragments.FilePart(file, groups));
      }
      return new Fragment(execution, owner, new String(sql, java.nio.charset.StandardCharsets.UTF_8), row, st, parts);
    } catch (IOException | RuntimeException e) {
      if (e instanceof org.apache.arrow.flight.FlightRuntimeException f) throw f;
      throw unknown(ticket);
    }
  }

  /** {@code n}, a count of items still to read: at least 0 and at most the bytes left. */
  private static int counted(int n, DataInputStream in) throws IOException {
    if (n < 0 || n > in.available()) throw new IOException("a count of " + n + " with " + in.available() + " bytes left");
    return n;
  }

  byte[] encode(Statement s) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeByte(VERSION);
        out.writeLong(s.id());
        out.writeUTF(s.user());
        byte[] sql = s.sql().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(sql.length);
        out.write(sql);
        out.writeInt(s.rows().size());
        for (List<Object> row : s.rows()) {
          out.writeInt(row.size());
          for (Object v : row) writeValue(out, v);
        }
      }
      byte[] body = bytes.toByteArray();
      byte[] mac = mac(body);
      byte[] handle = Arrays.copyOf(body, body.length + MAC_BYTES);
      System.arraycopy(mac, 0, handle, body.length, MAC_BYTES);
      return handle;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The statement of {@code handle}, if it is genuine, belongs to {@code user} and was not closed. */
  Statement decode(byte[] handle, String user) {
    Statement s = read(handle, user);
    if (s.id() != 0 && closed.contains(s.id())) {
      throw CallStatus.NOT_FOUND.withDescription("prepared statement " + s.id() + " was closed (ClosePreparedStatement):"
          + " prepare it again").toRuntimeException();
    }
    return s;
  }

  /** As {@link #decode}, closed or not (a ticket stays redeemable after its statement is closed). */
  Statement read(byte[] handle, String user) {
    if (handle.length <= MAC_BYTES) throw unknown(handle);
    byte[] body = Arrays.copyOf(handle, handle.length - MAC_BYTES);
    byte[] mac = Arrays.copyOfRange(handle, handle.length - MAC_BYTES, handle.length);
    if (!MessageDigest.isEqual(mac, mac(body))) throw unknown(handle);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
      if (in.readByte() != VERSION) throw unknown(handle);
      long id = in.readLong();
      String owner = in.readUTF();
      if (!owner.equals(user)) throw unknown(handle);
      byte[] sql = new byte[in.readInt()];
      in.readFully(sql);
      int n = in.readInt();
      List<List<Object>> rows = new ArrayList<>(n);
      for (int r = 0; r < n; r++) {
        int width = in.readInt();
        List<Object> row = new ArrayList<>(width);
        for (int c = 0; c < width; c++) row.add(readValue(in));
        rows.add(row);
      }
      return new Statement(id, owner, new String(sql, java.nio.charset.StandardCharsets.UTF_8), rows);
    } catch (IOException e) {
      throw unknown(handle);
    }
  }

  private static RuntimeException unknown(byte[] handle) {
    String shown = java.util.HexFormat.of().formatHex(handle, 0, Math.min(handle.length, 8));
    return CallStatus.NOT_FOUND.withDescription("unknown or expired statement handle " + shown
        + "… (" + handle.length + " bytes): prepare the statement again").toRuntimeException();
  }

  private byte[] mac(byte[] body) {
    return Signing.hmac(key, body);
  }


  private static void writeValue(DataOutputStream out, Object v) throws IOException {
    if (v == null) {
      out.writeByte(0);
    } else if (v instanceof Long l) {
      out.writeByte(1);
      out.writeLong(l);
    } else if (v instanceof Double d) {
      out.writeByte(2);
      out.writeDouble(d);
    } else if (v instanceof BigDecimal b) {
      out.writeByte(3);
      out.writeUTF(b.toString());
    } else if (v instanceof String s) {
      out.writeByte(4);
      byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeInt(b.length);
      out.write(b);
    } else if (v instanceof Boolean b) {
      out.writeByte(5);
      out.writeBoolean(b);
    } else if (v instanceof byte[] b) {
      out.writeByte(6);
      out.writeInt(b.length);
      out.write(b);
    } else {
      throw new IllegalArgumentException("cannot keep a parameter of " + v.getClass());
    }
  }

  private static Object readValue(DataInputStream in) throws IOException {
    byte tag = in.readByte();
    switch (tag) {
      case 0: return null;
      case 1: return in.readLong();
      case 2: return in.readDouble();
      case 3: return new BigDecimal(in.readUTF());
      case 4: {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
      }
      case 5: return in.readBoolean();
      case 6: {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
      }
      default: throw new IOException("bad tag " + tag);
    }
  }
}
