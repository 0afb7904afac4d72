/** The back-office's products: names, enabling and disabling, adding from the catalogue. */
export { ProductsPage } from './components/products-page';
