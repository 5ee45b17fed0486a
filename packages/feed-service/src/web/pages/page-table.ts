/** The page renderers of spec §5.3 by name, for the routes file (http/routes.ts) to list. */
import { categoriesPage } from "./categories-page.js";
import { categoryPage } from "./category-page.js";
import { feedPage } from "./feed-page.js";
import { feedsPage } from "./feeds-page.js";
import { languagesPage } from "./languages-page.js";
import { popularPage } from "./popular-page.js";
import { recentPage } from "./recent-page.js";
import { searchPage } from "./search-page.js";
import { smartCategoriesPage } from "./smart-categories-page.js";
import { smartCategoryPage } from "./smart-category-page.js";

export const pages = {
  recent: recentPage,
  search: searchPage,
  popular: popularPage,
  categories: categoriesPage,
  category: categoryPage,
  smartCategories: smartCategoriesPage,
  smartCategory: smartCategoryPage,
  feeds: feedsPage,
  feed: feedPage,
  languages: languagesPage,
} as const;
