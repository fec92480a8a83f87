import { $api } from '../../lib/api/client';

/** The id of the datalist the category fields of the community pages offer. */
export const CATEGORY_LIST_ID = 'catalogue-categories';

/**
 * The catalogue's categories (list_market_categories), offered to the community pages' category fields, so a community market
 * is filed where the catalogue's markets of its kind are. A suggestion list: the API takes any category.
 */
export function CatalogueCategories() {
  const categories = $api.useQuery('get', '/api/markets/categories', {}, { staleTime: 300_000 });
  return (
    <datalist id={CATEGORY_LIST_ID}>
      {categories.data?.categories.map((c) => (
        <option key={c.category} value={c.category} />
      ))}
    </datalist>
  );
}
