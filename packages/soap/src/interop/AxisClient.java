import coldfusion.xml.rpc.ComponentInvocationException;
import coldfusion.xml.rpc.QueryBean;
import java.net.URL;
import java.text.SimpleDateFormat;
import java.util.Calendar;
import java.util.TimeZone;
import webservices.InteropProbe;
import webservices.InteropProbeServiceLocator;

/**
 * Calls every operation of the interop probe through the stubs that Axis 1.4's WSDL2Java
 * generated from the served WSDL, and prints what Axis decoded, one fact per line, in ASCII
 * (non-ASCII as \\uXXXX) so that the output does not depend on the platform's encoding.
 * Usage: java AxisClient <endpoint-url>
 */
public class AxisClient {
  public static void main(String[] args) throws Exception {
    InteropProbe port = new InteropProbeServiceLocator().getInteropProbeCfc(new URL(args[0]));
    print("echo", port.echoArguments(2.5, "Gr\u00fc\u00dfe \u6771\u4eac\ud83d\ude00", "2024-01-02T03:04:05Z"));
    print("echoNull", port.echoArguments(-1, "", null));
    print("samples", port.getSamples());
    print("nothing", port.getNothing(0));
    try {
      port.failWith("because");
      System.out.println("fault none");
    } catch (ComponentInvocationException e) {
      System.out.println("fault typed " + e.getFaultCode().getLocalPart() + " " + ascii(e.getFaultString()));
    }
    try {
      port.crash();
      System.out.println("crash none");
    } catch (ComponentInvocationException e) {
      System.out.println("crash typed " + ascii(e.getFaultString()));
    }
  }

  static void print(String label, QueryBean bean) {
    StringBuilder columns = new StringBuilder();
    for (String c : bean.getColumnList()) columns.append(columns.length() == 0 ? "" : ",").append(c);
    System.out.println(label + " columns " + columns);
    Object[][] data = bean.getData();
    System.out.println(label + " rows " + (data == null ? "null" : String.valueOf(data.length)));
    if (data == null) return;
    for (int r = 0; r < data.length; r++) {
      StringBuilder line = new StringBuilder(label + " row " + r + ":");
      for (Object cell : data[r]) line.append(' ').append(show(cell));
      System.out.println(line);
    }
  }

  static String show(Object cell) {
    if (cell == null) return "null";
    if (cell instanceof Calendar) {
      SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
      f.setTimeZone(TimeZone.getTimeZone("UTC"));
      return "Calendar=" + f.format(((Calendar) cell).getTime());
    }
    return cell.getClass().getSimpleName() + "=" + ascii(String.valueOf(cell));
  }

  static String ascii(String s) {
    StringBuilder out = new StringBuilder();
    for (char ch : s.toCharArray()) {
      if (ch >= 0x20 && ch < 0x7f) out.append(ch);
      else out.append(String.format("\\u%04x", (int) ch));
    }
    return out.toString();
  }
}
