import { Component, type ErrorInfo, type ReactNode } from 'react';
import { asApiError } from '../lib/api/api-error';

interface Props {
  children: ReactNode;
}

/** A page that throws while drawing shows what broke and a way on, never a blank screen. */
export class ErrorBoundary extends Component<Props, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('page error', error, info.componentStack);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    const e = asApiError(this.state.error);
    return (
      <div role="alert" className="error">
        <h1>Something went wrong on this page</h1>
        <p className="error-message">{e.message}</p>
        <p>
          <a href={window.location.pathname}>Reload the page</a> or go to the <a href="/">markets</a>.
        </p>
      </div>
    );
  }
}
