import { useMutation, useQueryClient } from '@tanstack/react-query';
import { $api, api } from '../../lib/api/client';
import { useRefreshAccount } from '../../lib/account';
import { dateTime } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { usePortfolio } from '../../lib/portfolio';
import { NotificationBody, needsPositions } from './notification-body';

/** The person's notifications, newest first, each marked read on its own or all at once; the header's count follows. */
export function NotificationsPage() {
  usePageTitle('Notifications');
  const list = $api.useQuery('get', '/api/notifications', { params: { query: { limit: 100 } } });
  const client = useQueryClient();
  const refreshAccount = useRefreshAccount();
  const positions = usePortfolio(list.data?.notifications.some(needsPositions) ?? false);
  const markRead = useMutation({
    mutationFn: (body: { notificationIds?: string[]; markAll?: boolean }) => api.POST('/api/notifications', { body }),
    onSuccess: async () => {
      await Promise.all([client.invalidateQueries({ queryKey: ['get', '/api/notifications'] }), refreshAccount()]);
    },
  });
  if (list.isPending) return <Loading what="your notifications" />;
  if (list.isError) return <ErrorMessage error={list.error} />;
  const { notifications, unreadCount } = list.data;
  return (
    <>
      <h1>Notifications</h1>
      <p role="status">{unreadCount === 0 ? 'Nothing unread.' : `${unreadCount} unread.`}</p>
      {unreadCount > 0 ? (
        <button type="button" onClick={() => markRead.mutate({ markAll: true })} disabled={markRead.isPending}>
          Mark all as read
        </button>
      ) : null}
      {markRead.isError ? <ErrorMessage error={markRead.error} /> : null}
      {notifications.length === 0 ? (
        <p>No notifications yet: trade, earn badges and claim challenges to get some.</p>
      ) : (
        <ul className="notification-list" aria-label="Notifications">
          {notifications.map((n) => (
            <li key={n.id} className={n.read ? 'card read' : 'card unread'}>
              <h2 className="notification-title">
                {n.read ? null : <span className="visually-hidden">Unread: </span>}
                {n.title}
              </h2>
              <NotificationBody n={n} positions={positions.data?.positions} />
              <p className="muted">
                {dateTime(n.createdAt)}
                {n.read ? ' · read' : null}
              </p>
              {n.read ? null : (
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Mark “${n.title}” as read`}
                  onClick={() => markRead.mutate({ notificationIds: [n.id] })}
                  disabled={markRead.isPending}
                >
                  Mark as read
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
