/**
 * The words of the demo corpus: everyday words per language (drawn with a skew, like real text),
 * technology terms shared by every language (each in a few percent of posts, so smart categories
 * such as "TypeScript OR JavaScript" have something to find), and rare words, each placed in about
 * 0.5% of posts (at most 1%), from which benchmarks draw their search queries.
 *
 * Japanese and Chinese are written as they are read, without spaces between words (the lists
 * below are only split for this file's sake; demo-post-writer.ts joins them with nothing); Korean
 * puts spaces between its word groups, as Korean does. Search finds words inside such runs through
 * the analyzer's character pairs (search/text-analyzer.ts).
 */

const words = (text: string): readonly string[] => text.trim().split(/\s+/u);

export const demoCommonWords: Readonly<Record<string, readonly string[]>> = {
  en: words(`the new release update guide how why what with from about performance better faster simple
    modern web server client data code project team build test deploy design pattern library framework
    tool version feature support change error problem solution example tutorial introduction deep dive
    notes week today future history lessons learned practical beginner advanced tips tricks review
    open source community developer application service platform network security privacy browser
    mobile desktop cloud storage memory cache query index search language compiler runtime module
    package release candidate stable experimental migration upgrade benchmark measure production`),
  fr: words(`le la les un une des nouveau nouvelle mise jour guide comment pourquoi avec pour sur dans
    performance meilleur rapide simple moderne serveur client données code projet équipe construire
    tester déployer conception modèle bibliothèque outil version fonctionnalité changement erreur
    problème solution exemple tutoriel introduction approfondie semaine aujourd'hui avenir histoire
    leçons pratique débutant avancé astuces revue communauté développeur application plateforme
    réseau sécurité confidentialité navigateur mobile nuage stockage mémoire requête recherche langage
    compilateur module paquet stable expérimental migration mesure production café été société`),
  de: words(`der die das ein eine neue neuer aktualisierung anleitung wie warum mit von über leistung
    besser schneller einfach modern webserver kunde daten quelltext projekt mannschaft bauen testen
    bereitstellen entwurf muster bibliothek werkzeug version funktion änderung fehler problem lösung
    beispiel einführung woche heute zukunft geschichte lektionen praktisch anfänger fortgeschritten
    tipps überblick gemeinschaft entwickler anwendung dienst plattform netzwerk sicherheit datenschutz
    browser mobil wolke speicher abfrage suche sprache übersetzer laufzeit modul paket stabil
    experimentell migration messung produktion straße größe grüße schön`),
  es: words(`el la los las un una nuevo nueva actualización guía cómo por qué con desde sobre rendimiento
    mejor rápido sencillo moderno servidor cliente datos código proyecto equipo construir probar
    desplegar diseño patrón biblioteca herramienta versión función cambio error problema solución
    ejemplo tutorial introducción semana hoy futuro historia lecciones práctico principiante avanzado
    consejos trucos revisión comunidad desarrollador aplicación servicio plataforma red seguridad
    privacidad navegador móvil nube almacenamiento memoria consulta búsqueda lenguaje compilador módulo
    paquete estable experimental migración medición producción año niño señal`),
  "pt-BR": words(`o a os as um uma novo nova atualização guia como por que com sobre desempenho melhor rápido
    simples moderno servidor cliente dados código projeto equipe construir testar implantar design
    padrão biblioteca ferramenta versão recurso mudança erro problema solução exemplo tutorial
    introdução semana hoje futuro história lições prático iniciante avançado dicas truques revisão
    comunidade desenvolvedor aplicação serviço plataforma rede segurança privacidade navegador celular
    nuvem armazenamento memória consulta busca linguagem compilador módulo pacote estável experimental
    migração medição produção ação coração informação`),
  ja: words(`新しい リリース 更新 ガイド 方法 理由 性能 改善 高速 簡単 最新 ウェブ サーバー クライアント データ
    コード プロジェクト チーム 構築 テスト デプロイ 設計 パターン ライブラリ フレームワーク ツール バージョン
    機能 変更 エラー 問題 解決 例 チュートリアル 入門 解説 週 今日 未来 歴史 教訓 実践 初心者 上級 ヒント
    レビュー コミュニティ 開発者 アプリケーション サービス プラットフォーム ネットワーク セキュリティ
    プライバシー ブラウザ モバイル クラウド ストレージ メモリ キャッシュ 検索 言語 コンパイラ モジュール
    パッケージ 安定版 実験的 移行 計測 本番 東京 大阪 発売 天気`),
  zh: words(`新的 发布 更新 指南 方法 原因 性能 改进 快速 简单 现代 网络 服务器 客户端 数据 代码 项目 团队 构建
    测试 部署 设计 模式 框架 工具 版本 功能 变更 错误 问题 解决方案 示例 教程 入门 深入 每周 今天 未来
    历史 经验 实践 初学者 高级 技巧 评测 开源 社区 开发者 应用 服务 平台 安全 隐私 浏览器 移动 云 存储
    内存 缓存 查询 索引 搜索 语言 编译器 运行时 模块 稳定版 实验性 迁移 基准 生产 北京 上海 中国`),
  ko: words(`새로운 출시 업데이트 가이드 방법 이유 성능 개선 빠른 간단한 최신 웹 서버 클라이언트 데이터 코드
    프로젝트 팀 구축 테스트 배포 설계 패턴 라이브러리 프레임워크 도구 버전 기능 변경 오류 문제 해결 예제
    튜토리얼 입문 심층 이번 주 오늘 미래 역사 교훈 실전 초보자 고급 팁 리뷰 오픈소스 커뮤니티 개발자
    애플리케이션 서비스 플랫폼 네트워크 보안 개인정보 브라우저 모바일 클라우드 저장소 메모리 캐시 검색
    언어 컴파일러 런타임 모듈 패키지 안정 실험 마이그레이션 측정 운영 서울 한국어`),
  it: words(`il la gli un una nuovo nuova aggiornamento guida come perché con da su prestazioni migliore
    veloce semplice moderno server cliente dati codice progetto squadra costruire provare rilasciare
    progettazione modello libreria strumento versione funzione modifica errore problema soluzione
    esempio introduzione settimana oggi futuro storia lezioni pratico principiante avanzato consigli
    revisione comunità sviluppatore applicazione servizio piattaforma rete sicurezza riservatezza
    navigatore mobile nuvola archiviazione memoria ricerca linguaggio compilatore modulo pacchetto
    stabile sperimentale migrazione misura produzione città perché`),
  nl: words(`de het een nieuwe update handleiding hoe waarom met van over prestaties beter sneller eenvoudig
    modern server klant gegevens code project team bouwen testen uitrollen ontwerp patroon bibliotheek
    gereedschap versie functie wijziging fout probleem oplossing voorbeeld introductie week vandaag
    toekomst geschiedenis lessen praktisch beginner gevorderd tips overzicht gemeenschap ontwikkelaar
    toepassing dienst platform netwerk beveiliging privacy browser mobiel wolk opslag geheugen zoeken
    taal compiler module pakket stabiel experimenteel migratie meting productie`),
};

/** Technology terms used in every language; each lands in a few percent of posts. */
export const demoTechTerms: readonly string[] = words(`TypeScript JavaScript Rust Go Python Java Kotlin Swift
  PostgreSQL SQLite MySQL Redis Kubernetes Docker Linux React Vue Svelte Node.js Deno CSS HTML WebAssembly
  GraphQL HTTP/3 OAuth Git GitHub Terraform Ansible Nginx Kafka Elasticsearch TensorFlow PyTorch`);

/**
 * Rare words: each appears in about 0.5% of demo posts (at most 1%), for search benchmarks that
 * must not be dominated by a few huge result sets.
 */
export const demoRareWords: readonly string[] = words(`memoization trampolining monomorphization
  backpressure tombstones quiescence linearizability bytecode disassembler tokenizer lexer parser
  combinator quaternion rasterizer shader tessellation voxel octree quadtree bloomfilter hyperloglog
  skiplist treap rope gapbuffer coroutine continuation fiber greenlet actor supervisor mailbox
  idempotency saga outbox compaction vacuum checkpoint wal journaling fsync mmap hugepages numa
  prefetcher branchless simd vectorization autovectorizer inlining devirtualization escapeanalysis
  tailcall bootstrapping selfhosting metacircular homoiconic macroexpansion hygiene typeclass
  higherkinded monad functor applicative lens prism zipper catamorphism anamorphism fixpoint
  unification subtyping variance covariance contravariance nominal structural gradual refinement
  dependent linear affine borrowck lifetimes arena slab bumpalloc refcount tracing generational
  concurrentgc safepoint stackmap deoptimization osr jit aot wasi componentmodel capability sandbox
  seccomp ebpf kprobe uprobe flamegraph sampling profiler heapdump coredump symbolication dwarf
  relocation linker loader plt got trampoline thunk shim polyfill transpiler sourcemap treeshaking
  minifier bundler hydration islands resumability signals reactivity memo suspense streaming`);
