#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QStringList>
#include <QVariantMap>

namespace ava::desktop {

// A list of JSON-like rows for QML (machines, projects, conversations,
// providers, models): each role is one key of the row's map. Replacing the
// rows keeps the view's state when the ids did not change (the conversation
// list refreshes at every turn end).
class RowsModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  RowsModel(QStringList roles, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void set_rows(QList<QVariantMap> rows);
  const QList<QVariantMap>& rows() const { return rows_; }
  int count() const { return static_cast<int>(rows_.size()); }
  Q_INVOKABLE QVariantMap get(int row) const;
  Q_INVOKABLE int indexOf(const QString& id) const;

 signals:
  void countChanged();

 private:
  QStringList roles_;
  QList<QVariantMap> rows_;
};

}  // namespace ava::desktop
