// Calls all 16 operations of a running feed service through stubs that Apache Axis 1.4's
// WSDL2Java generated from the service's own WSDL, and prints one line per call:
//   <operation> TAB <columns, comma-separated> TAB <row count> TAB <first row, cells as class:value | ...>
// and for the fault probe: fault TAB <exception class> TAB <message>.
// Usage: java FeedAggregatorClient <categoryId> <feedId> <smartCategoryId> <smartCategoryKey> <languageId> <sinceIso>
import coldfusion.xml.rpc.ComponentInvocationException;
import coldfusion.xml.rpc.QueryBean;
import webservices.FeedAggregator;
import webservices.FeedAggregatorServiceLocator;

public class FeedAggregatorClient {
    private static void print(String op, QueryBean bean) {
        StringBuilder line = new StringBuilder(op).append('\t');
        line.append(String.join(",", bean.getColumnList())).append('\t');
        Object[][] data = bean.getData();
        line.append(data == null ? 0 : data.length).append('\t');
        if (data != null && data.length > 0) {
            for (int i = 0; i < data[0].length; i++) {
                Object cell = data[0][i];
                if (i > 0) line.append(" | ");
                if (cell == null) line.append("null");
                else if (cell instanceof java.util.Calendar) line.append("Calendar:").append(((java.util.Calendar) cell).getTimeInMillis());
                else line.append(cell.getClass().getSimpleName()).append(':').append(cell);
            }
        }
        System.out.println(line.toString().replace('\n', ' '));
    }

    public static void main(String[] args) throws Exception {
        double categoryId = Double.parseDouble(args[0]);
        double feedId = Double.parseDouble(args[1]);
        double smartCategoryId = Double.parseDouble(args[2]);
        String smartCategoryKey = args[3];
        double languageId = Double.parseDouble(args[4]);
        java.util.Calendar since = java.util.GregorianCalendar.from(java.time.ZonedDateTime.parse(args[5]));
        FeedAggregator port = (FeedAggregator) new FeedAggregatorServiceLocator().getPort(FeedAggregator.class);
        print("search", port.search(5, 0, "flex", "date", ""));
        print("getMostRecentPosts", port.getMostRecentPosts(5, 0, "1, 2"));
        print("getPostsByCategory", port.getPostsByCategory(5, 0, categoryId, "", since));
        print("getPostsByFeed", port.getPostsByFeed(5, 0, feedId));
        print("getPostsBySmartCategory", port.getPostsBySmartCategory(5, 0, smartCategoryId, smartCategoryKey, ""));
        print("getMostPopularPosts", port.getMostPopularPosts(30, 5, null));
        print("getCategories", port.getCategories());
        print("getSmartCategories", port.getSmartCategories());
        print("getLanguages", port.getLanguages());
        print("getMostPopularFeeds", port.getMostPopularFeeds(30, 5));
        print("getMostProlificFeeds", port.getMostProlificFeeds(0.5, 5));
        print("getFeeds", port.getFeeds());
        print("getFeedsByCategory", port.getFeedsByCategory(categoryId));
        print("getSearchHistory", port.getSearchHistory());
        print("getFeedsByLanguage", port.getFeedsByLanguage(languageId));
        print("getAggregateLanguageData", port.getAggregateLanguageData());
        try {
            port.getMostRecentPosts(-1, 0, "");
            System.out.println("fault\tnone\tno exception");
        } catch (ComponentInvocationException e) {
            System.out.println("fault\tComponentInvocationException\t" + e.getFaultString());
        } catch (java.rmi.RemoteException e) {
            System.out.println("fault\t" + e.getClass().getName() + "\t" + e.getMessage());
        }
    }
}
