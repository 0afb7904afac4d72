/** The back-office's products: names, enabling and disabling. */
export { ProductsPage } from './components/products-page';
