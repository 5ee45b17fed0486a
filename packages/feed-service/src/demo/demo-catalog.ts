/**
 * The demo catalogue: 6 categories, 45 feeds in 10 languages with names, sites and descriptions,
 * and the smart categories. Feed weights make some feeds far more prolific than others, as in a
 * real aggregator.
 */

export const demoCategories: readonly string[] = [
  "Web Development",
  "Databases",
  "Cloud & DevOps",
  "Programming Languages",
  "Design & UX",
  "Security",
];

export interface DemoFeed {
  readonly name: string;
  /** Host of the feed's made-up site (under the reserved .example TLD). */
  readonly host: string;
  readonly language: string;
  /** Index into demoCategories, or null for an uncategorised feed. */
  readonly category: number | null;
  /** Relative share of the corpus's posts. */
  readonly weight: number;
  readonly description: string;
}

const feed = (
  name: string,
  host: string,
  language: string,
  category: number | null,
  weight: number,
  description: string,
): DemoFeed => ({ name, host, language, category, weight, description });

export const demoFeeds: readonly DemoFeed[] = [
  feed(
    "Frontend Weekly",
    "frontend-weekly.example",
    "en",
    0,
    9,
    "News and tutorials for frontend developers",
  ),
  feed("The Query Planner", "queryplanner.example", "en", 1, 6, "Notes on databases, indexes and SQL"),
  feed("Ops Notebook", "opsnotebook.example", "en", 2, 7, "Running software in production"),
  feed("Compiler Corner", "compilercorner.example", "en", 3, 4, "Languages, compilers and runtimes"),
  feed("Pixel Perfect", "pixelperfect.example", "en", 4, 3, "Interface design and accessibility"),
  feed("Patch Tuesday Digest", "patchdigest.example", "en", 5, 5, "Security advisories explained"),
  feed("Node Nuggets", "nodenuggets.example", "en", 0, 5, "Small lessons about Node.js"),
  feed("cloud native daily", "cloudnative.example", "en", 2, 8, "Containers, clusters and the cloud"),
  feed("Rustacean Review", "rustacean.example", "en", 3, 4, "The Rust ecosystem every week"),
  feed("Data Engineering Digest", "dataeng.example", "en", 1, 4, "Pipelines, warehouses and streams"),
  feed("Hacker Journal", "hackerjournal.example", "en", null, 6, "A personal blog about everything"),
  feed("Type Theory for Humans", "typetheory.example", "en", 3, 2, "Types without the jargon"),
  feed("Le Journal du Dev", "journaldudev.example", "fr", 0, 6, "L'actualité du développement web"),
  feed("Bases de données au quotidien", "bdd-quotidien.example", "fr", 1, 3, "SQL et au-delà"),
  feed("Sécurité & Réseaux", "secu-reseaux.example", "fr", 5, 3, "Veille sécurité en français"),
  feed("Café DevOps", "cafe-devops.example", "fr", 2, 4, "Automatisation et infrastructure"),
  feed("Design Système", "design-systeme.example", "fr", 4, 2, "Conception d'interfaces"),
  feed("Programmez!", "programmez.example", "fr", 3, 3, "Langages et outils"),
  feed("Entwickler Blog", "entwickler-blog.example", "de", 0, 5, "Webentwicklung auf Deutsch"),
  feed("Datenbank Praxis", "datenbank-praxis.example", "de", 1, 3, "Praxiswissen für Datenbanken"),
  feed("Sicherheit heute", "sicherheit-heute.example", "de", 5, 4, "Aktuelle Sicherheitsnachrichten"),
  feed("Wolke und Betrieb", "wolke-betrieb.example", "de", 2, 3, "Cloud und Betrieb"),
  feed("Sprachen & Compiler", "sprachen-compiler.example", "de", 3, 2, "Programmiersprachen im Detail"),
  feed("Gestaltung Digital", "gestaltung.example", "de", 4, 2, "Digitale Gestaltung"),
  feed("Desarrollo Web Hoy", "desarrollo-hoy.example", "es", 0, 5, "Noticias de desarrollo web"),
  feed("El Rincón de los Datos", "rincon-datos.example", "es", 1, 3, "Bases de datos y análisis"),
  feed("Nube Práctica", "nube-practica.example", "es", 2, 3, "DevOps en español"),
  feed("Seguridad Informática", "seguridad-info.example", "es", 5, 2, "Noticias de seguridad"),
  feed("Código Limpio", "codigo-limpio.example", "es", 3, 2, "Buenas prácticas de programación"),
  feed("Dev Brasil", "devbrasil.example", "pt-BR", 0, 5, "Desenvolvimento web no Brasil"),
  feed("Dados em Foco", "dados-foco.example", "pt-BR", 1, 3, "Bancos de dados e análise"),
  feed("Nuvem na Prática", "nuvem-pratica.example", "pt-BR", 2, 2, "Infraestrutura e DevOps"),
  feed("Segurança Digital", "seguranca-digital.example", "pt-BR", 5, 2, "Segurança da informação"),
  feed("フロントエンド通信", "frontend-tsushin.example", "ja", 0, 4, "フロントエンド開発のニュース"),
  feed("データベース日記", "db-nikki.example", "ja", 1, 2, "データベースの実践"),
  feed("クラウド運用ノート", "cloud-note.example", "ja", 2, 3, "クラウドと運用"),
  feed("プログラミング言語研究", "gengo-kenkyu.example", "ja", 3, 2, "言語とコンパイラ"),
  feed("前端开发周刊", "qianduan-zhoukan.example", "zh", 0, 4, "前端开发的新闻与教程"),
  feed("数据库实战", "shujuku-shizhan.example", "zh", 1, 2, "数据库与查询优化"),
  feed("云原生运维笔记", "yunyuansheng.example", "zh", 2, 3, "容器、集群与云"),
  feed("웹 개발 소식", "webdev-news.example", "ko", 0, 3, "웹 개발자를 위한 뉴스"),
  feed("보안 브리핑", "security-briefing.example", "ko", 5, 2, "보안 권고와 해설"),
  feed("Sviluppo Web Italia", "sviluppo-web.example", "it", 0, 3, "Sviluppo web in italiano"),
  feed("Sicurezza Oggi", "sicurezza-oggi.example", "it", 5, 2, "Notizie sulla sicurezza"),
  feed("Ontwikkelaars Nieuws", "ontwikkelaars.example", "nl", null, 2, "Nieuws voor ontwikkelaars"),
];

export const demoSmartCategories: ReadonlyArray<{ name: string; query: string }> = [
  { name: "TypeScript & JavaScript", query: "TypeScript OR JavaScript" },
  { name: "Rust", query: "rust" },
  { name: "Containers", query: "kubernetes OR docker" },
  { name: "Embedded databases", query: "sqlite -mysql" },
  { name: "Python machine learning", query: "python tensorflow OR pytorch" },
  { name: "Café", query: "café" },
];
