package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.junit.jupiter.api.Test;

/**
 * A fragment ticket is read as if its signature could be forged (a holder of the shared secret can sign anything):
 * every field is checked, and a ticket that fails a check is an unknown ticket, never a scan that loops on batches
 * of 0 rows or an allocation of the size a count claims.
 */
class FragmentTicketTest {
  private static final byte[] SECRET = "a shared secret of the replicas".getBytes(StandardCharsets.UTF_8);

  /** What a fragment ticket's body holds, each field settable, with one file part. */
  private static byte[] body(int sqlLength, String zone, long timeoutMs, int batchRows, int parts, int groups,
      int rowGroup) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(2);
      out.writeLong(42);
      out.writeUTF("alice");
      byte[] sql = "SELECT 1".getBytes(StandardCharsets.UTF_8);
      out.writeInt(sqlLength < 0 ? sql.length : sqlLength);
      out.write(sql);
      out.writeInt(-1);
      out.writeBoolean(true);
      out.writeUTF(zone);
      out.writeLong(timeoutMs);
      out.writeInt(batchRows);
      out.writeBoolean(true);
      out.writeBoolean(true);
      out.writeInt(parts);
      out.writeUTF("file:/data/t.parquet");
      out.writeLong(100);
      out.writeLong(1);
      out.writeUTF("v");
      out.writeInt(groups);
      out.writeInt(rowGroup);
    }
    return bytes.toByteArray();
  }

  private static byte[] signed(byte[] body) {
    StatementHandles replica = new StatementHandles(); // another replica with the same secret seals it
    replica.useSecret(SECRET);
    return replica.seal(body);
  }

  @Test
  void everyFieldIsCheckedAfterTheSignature() throws IOException {
    StatementHandles handles = new StatementHandles();
    handles.useSecret(SECRET);
    StatementHandles.Fragment ok = handles.readFragment(signed(body(-1, "UTC", 0, 1024, 1, 1, 3)), "alice");
    assertThat(ok.settings().batchRows()).isEqualTo(1024);
    assertThat(ok.parts()).hasSize(1);
    assertThat(ok.parts().get(0).rowGroups()).containsExactly(3);
    // the ticket shows neither the SQL nor the file's path
    String shown = new String(signed(body(-1, "UTC", 0, 1024, 1, 1, 3)), StandardCharsets.ISO_8859_1);
    assertThat(shown).doesNotContain("SELECT 1").doesNotContain("/data/t.parquet").doesNotContain("alice");
    // signed but not sealed (the old format): unknown
    byte[] plain = body(-1, "UTC", 0, 1024, 1, 1, 3);
    byte[] mac = Signing.hmac(Signing.deriveKey("", SECRET), plain);
    byte[] unsealed = Arrays.copyOf(plain, plain.length + mac.length);
    System.arraycopy(mac, 0, unsealed, plain.length, mac.length);
    assertThatThrownBy(() -> handles.readFragment(unsealed, "alice")).isInstanceOf(FlightRuntimeException.class);
    List<byte[]> forged = List.of(
        body(-1, "UTC", 0, 0, 1, 1, 3), // batches of 0 rows: the scan's tasks looped forever
        body(-1, "UTC", 0, -5, 1, 1, 3),
        body(-1, "UTC", 0, 2_000_000, 1, 1, 3),
        body(-1, "UTC", -1, 1024, 1, 1, 3), // a negative statement timeout
        body(-1, "Mars/Olympus_Mons", 0, 1024, 1, 1, 3),
        body(-1, "UTC", 0, 1024, 1, 1, -1), // row group -1
        body(Integer.MAX_VALUE, "UTC", 0, 1024, 1, 1, 3), // a 2 GiB SQL text claimed
        body(-1, "UTC", 0, 1024, Integer.MAX_VALUE, 1, 3), // 2^31 file parts claimed
        body(-1, "UTC", 0, 1024, 1, Integer.MAX_VALUE, 3));
    for (byte[] b : forged) {
      assertThatThrownBy(() -> handles.readFragment(signed(b), "alice"))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
    }
  }
}
